#include "workloads/tensor_conversion.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace torchscan::workloads {
namespace {

using torchscan::v1::WorkloadSpec;

TEST(TensorConversion, PrecisionOfTheSpec) {
  EXPECT_EQ(PrecisionDtype(WorkloadSpec::bfloat16), at::kBFloat16);
  EXPECT_EQ(PrecisionDtype(WorkloadSpec::float16), at::kHalf);
  EXPECT_EQ(PrecisionDtype(WorkloadSpec::float32), at::kFloat);
}

TEST(TensorConversion, FloatingTensorsTakeThePrecisionOthersKeepTheirDtype) {
  const at::Tensor floats = torch::ones({2, 3});
  const at::Tensor ints = torch::ones({2, 3}, torch::kInt64);
  EXPECT_EQ(ConvertTensor(floats, torch::kCPU, at::kBFloat16, false).scalar_type(), at::kBFloat16);
  EXPECT_EQ(ConvertTensor(ints, torch::kCPU, at::kBFloat16, false).scalar_type(), at::kLong);
  EXPECT_EQ(floats.scalar_type(), at::kFloat);  // the source is unchanged
}

TEST(TensorConversion, ChannelsLastOnlyFor4DFloatingTensors) {
  const at::Tensor image = torch::ones({1, 3, 4, 4});
  EXPECT_TRUE(ConvertTensor(image, torch::kCPU, at::kFloat, true).is_contiguous(at::MemoryFormat::ChannelsLast));
  EXPECT_FALSE(ConvertTensor(image, torch::kCPU, at::kFloat, false).is_contiguous(at::MemoryFormat::ChannelsLast));
  const at::Tensor ints = torch::ones({1, 3, 4, 4}, torch::kInt64);
  EXPECT_FALSE(ConvertTensor(ints, torch::kCPU, at::kFloat, true).is_contiguous(at::MemoryFormat::ChannelsLast));
}

TEST(TensorConversion, InPlaceKeepsTheHandlesAndSkipsUndefinedTensors) {
  torch::nn::Linear linear(4, 2);
  ConvertInPlace({linear->weight, linear->bias, at::Tensor()}, torch::kCPU, at::kBFloat16, false);
  EXPECT_EQ(linear->weight.scalar_type(), at::kBFloat16);
  EXPECT_EQ(linear->bias.scalar_type(), at::kBFloat16);
}

}  // namespace
}  // namespace torchscan::workloads
