#include "workloads/forward_call.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace torchscan::workloads {
namespace {

TEST(ForwardCall, BatchCallsTheForwardOnceOnAllInputs) {
  int calls = 0;
  auto call = MakeCall(
      [&calls](const std::vector<at::Tensor>& in) -> c10::IValue {
        ++calls;
        return in[0] + in[1];
      },
      {torch::ones({3, 2}), torch::ones({3, 2})}, /*per_sample=*/false, /*keep_batch_dim=*/false);
  EXPECT_TRUE(torch::equal(call().toTensor(), torch::full({3, 2}, 2.0)));
  EXPECT_EQ(calls, 1);
}

TEST(ForwardCall, PerSampleStacksOrConcatenatesTensorsAndTuples) {
  const at::Tensor x = torch::arange(6, torch::kFloat).reshape({3, 2});
  auto pair = [](const std::vector<at::Tensor>& in) -> c10::IValue {
    return c10::ivalue::Tuple::create({in[0] * 2, in[0].sum(-1)});
  };
  const c10::IValue stacked = MakeCall(pair, {x}, /*per_sample=*/true, /*keep_batch_dim=*/false)();
  EXPECT_TRUE(torch::equal(stacked.toTuple()->elements()[0].toTensor(), x * 2));
  EXPECT_EQ(stacked.toTuple()->elements()[1].toTensor().sizes().vec(), std::vector<int64_t>{3});

  const c10::IValue narrowed = MakeCall(pair, {x}, /*per_sample=*/true, /*keep_batch_dim=*/true)();
  EXPECT_TRUE(torch::equal(narrowed.toTuple()->elements()[0].toTensor(), x * 2));
}

TEST(ForwardCall, PerSampleRefusesOutputsItCannotCombine) {
  auto text = [](const std::vector<at::Tensor>&) -> c10::IValue { return std::string("no"); };
  try {
    MakeCall(text, {torch::ones({2, 1})}, /*per_sample=*/true, /*keep_batch_dim=*/false)();
    FAIL() << "no error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("per_sample: cannot combine outputs of type String"), std::string::npos)
        << e.what();
  }
}

TEST(ForwardCall, ShapesOneForwardSees) {
  const std::vector<at::Tensor> inputs = {torch::zeros({4, 3, 8}), torch::zeros({4})};
  EXPECT_EQ(ForwardInputShapes(inputs, false, false), (std::vector<std::vector<int64_t>>{{4, 3, 8}, {4}}));
  EXPECT_EQ(ForwardInputShapes(inputs, true, false), (std::vector<std::vector<int64_t>>{{3, 8}, {}}));
  EXPECT_EQ(ForwardInputShapes(inputs, true, true), (std::vector<std::vector<int64_t>>{{1, 3, 8}, {1}}));
}

}  // namespace
}  // namespace torchscan::workloads
