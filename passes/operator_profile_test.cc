#include "passes/operator_profile.h"

#include <sstream>

#include <gtest/gtest.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "workloads/workload.h"

namespace torchscan::passes {
namespace {

using torchscan::v1::ModelSpec;
using torchscan::v1::OperatorProfile;
using torchscan::v1::WorkloadSpec;

OperatorProfile Profile(const WorkloadSpec& spec, int calls) {
  const auto workload = workloads::BuildWorkload(spec);
  EXPECT_TRUE(workload.ok()) << workload.status();
  const auto profile = ProfileWorkload(workload->call, calls);
  EXPECT_TRUE(profile.ok()) << profile.status();
  return *profile;
}

WorkloadSpec Builtin(ModelSpec::Builtin builtin) {
  WorkloadSpec spec;
  spec.mutable_model()->set_builtin(builtin);
  return spec;
}

const torchscan::v1::OperatorStat* Find(const OperatorProfile& profile, const std::string& name) {
  for (const auto& op : profile.operators()) {
    if (op.name() == name) return &op;
  }
  return nullptr;
}

// Multiply-accumulates of a convolution: C_out * H_out * W_out * C_in * k * k (groups 1).
constexpr int64_t ConvMacs(int64_t c_in, int64_t c_out, int64_t out_hw, int64_t k) {
  return c_out * out_hw * out_hw * c_in * k * k;
}

TEST(ProfileWorkload, LinearFlopsAreTwoPerMultiplyAddWithoutBias) {
  // addmm(bias, x [32, 128], W^T [128, 128]): 32 * 128 * 128 multiply-adds = 1,048,576 FLOPs.
  // The bias addition (32 * 128 additions) is not counted (see kFlopConvention).
  const OperatorProfile profile = Profile(Builtin(ModelSpec::linear), 3);
  EXPECT_EQ(profile.profiled_calls(), 3);
  EXPECT_EQ(profile.flops_per_call().value(), 1048576.0);
  EXPECT_TRUE(profile.flops_per_call().complete()) << profile.DebugString();
  EXPECT_EQ(profile.flops_per_call().unit(), "FLOP");
  EXPECT_NE(profile.note().find("profiler times include instrumentation and are not clean workload timing"),
            std::string::npos);
  EXPECT_NE(profile.note().find("a multiply-add counts as 2 FLOPs"), std::string::npos);
  const auto* addmm = Find(profile, "aten::addmm");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->calls(), 3);
  EXPECT_EQ(addmm->flops(), 3 * 1048576.0);  // totals over the profiled calls
  ASSERT_EQ(addmm->shapes_size(), 1);
  EXPECT_EQ(addmm->shapes(0).input_shapes(), "[128] [32, 128] [128, 128]");
  EXPECT_EQ(addmm->shapes(0).calls(), 3);
  EXPECT_LE(addmm->self_time_s(), addmm->total_time_s());
  EXPECT_GT(addmm->total_time_s(), 0);
  const auto* t = Find(profile, "aten::t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->flops(), 0);  // views count 0 by convention
}

TEST(ProfileWorkload, PerSampleLinearCountsTheSameFlops) {
  // 32 x matmul([128], [128, 128]) = 32 * 2 * 128 * 128 = 1,048,576; stack counts 0.
  WorkloadSpec spec = Builtin(ModelSpec::linear);
  spec.set_execution_mode(WorkloadSpec::per_sample);
  const OperatorProfile profile = Profile(spec, 1);
  EXPECT_EQ(profile.flops_per_call().value(), 1048576.0);
  EXPECT_TRUE(profile.flops_per_call().complete());
  const auto* matmul = Find(profile, "aten::matmul");
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(matmul->calls(), 32);
  const auto* mm = Find(profile, "aten::mm");  // inside matmul: not counted twice
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->flops(), 0);
  const auto* stack = Find(profile, "aten::stack");
  ASSERT_NE(stack, nullptr);
  EXPECT_EQ(stack->shapes(0).input_shapes(), "32x[128]");
}

TEST(ProfileWorkload, ResNet18FlopsMatchTheArchitecture) {
  // Per 3x32x32 image (multiply-accumulates, MACs):
  //   conv1 7x7/2, 3->64, 16x16 out:                          64*16*16*3*49   =  2,408,448
  //   max-pool 3x3/2 -> 8x8
  //   layer1: 4 convs 3x3, 64->64 at 8x8:                 4 * 64*8*8*64*9     =  9,437,184
  //   layer2: 3x3/2 64->128 at 4x4 (1,179,648) + 3x3 128->128 (2,359,296)
  //           + 1x1/2 downsample 64->128 (131,072) + 2 convs 128->128 (4,718,592) =  8,388,608
  //   layer3 at 2x2 and layer4 at 1x1: the same pattern, 8,388,608 each      = 16,777,216
  //   fc 512 -> 1000:                                          512*1000       =    512,000
  //   total per image                                                          = 37,523,456
  // FLOPs = 2 * MACs * 4 images = 300,187,648. BatchNorm, ReLU, pooling and the residual
  // additions count 0 by convention.
  const int64_t stem = ConvMacs(3, 64, 16, 7);
  const int64_t layer1 = 4 * ConvMacs(64, 64, 8, 3);
  auto stage = [](int64_t c_in, int64_t c_out, int64_t hw) {
    return ConvMacs(c_in, c_out, hw, 3) + 3 * ConvMacs(c_out, c_out, hw, 3) + ConvMacs(c_in, c_out, hw, 1);
  };
  const int64_t macs_per_image =
      stem + layer1 + stage(64, 128, 4) + stage(128, 256, 2) + stage(256, 512, 1) + 512 * 1000;
  ASSERT_EQ(macs_per_image, 37523456);
  const int64_t expected = 2 * 4 * macs_per_image;
  ASSERT_EQ(expected, 300187648);

  const OperatorProfile profile = Profile(Builtin(ModelSpec::resnet18), 1);
  EXPECT_EQ(profile.flops_per_call().value(), static_cast<double>(expected));
  EXPECT_TRUE(profile.flops_per_call().complete()) << profile.flops_per_call().DebugString();
  const auto* conv2d = Find(profile, "aten::conv2d");
  ASSERT_NE(conv2d, nullptr);
  EXPECT_EQ(conv2d->calls(), 20);  // 1 + 16 + 3 downsample
  EXPECT_EQ(conv2d->flops(), 2.0 * 4 * (macs_per_image - 512 * 1000));
  const auto* convolution = Find(profile, "aten::_convolution");
  ASSERT_NE(convolution, nullptr);
  EXPECT_EQ(convolution->flops(), 0);  // nested inside conv2d

  // Channels-last and per-sample forwards do the same arithmetic.
  WorkloadSpec channels_last = Builtin(ModelSpec::resnet18);
  channels_last.set_channels_last(true);
  EXPECT_EQ(Profile(channels_last, 1).flops_per_call().value(), static_cast<double>(expected));
  WorkloadSpec per_sample = Builtin(ModelSpec::resnet18);
  per_sample.set_execution_mode(WorkloadSpec::per_sample);
  EXPECT_EQ(Profile(per_sample, 1).flops_per_call().value(), static_cast<double>(expected));
}

TEST(ProfileWorkload, BertFlopsMatchTheConfiguration) {
  // B=4 sequences, S=8 tokens, T=B*S=32 tokens, H=128, 2 heads of d=64, I=512, 2 layers.
  // Per layer:
  //   Q, K, V and attention output projections: 4 * 2*T*H*H = 4 * 1,048,576   = 4,194,304
  //   scores Q K^T:       2 * B*heads * S*S*d = 2 * 8 * 8*8*64                 =    65,536
  //   context probs V:    2 * B*heads * S*d*S                                  =    65,536
  //   feed-forward: 2*T*H*I + 2*T*I*H = 4,194,304 + 4,194,304                  = 8,388,608
  //   layer total                                                               = 12,713,984
  // 2 layers = 25,427,968; pooler dense on [CLS]: 2*B*H*H = 131,072.
  // Total 25,559,040 FLOPs. Embedding lookups, LayerNorm, softmax, GELU, tanh, the mask and
  // the scaling count 0 by convention.
  const int64_t B = 4, S = 8, T = B * S, H = 128, heads = 2, d = H / heads, I = 512;
  const int64_t layer = 4 * 2 * T * H * H + 2 * (2 * B * heads * S * S * d) + 2 * (2 * T * H * I);
  ASSERT_EQ(layer, 12713984);
  const int64_t expected = 2 * layer + 2 * B * H * H;
  ASSERT_EQ(expected, 25559040);

  const OperatorProfile profile = Profile(Builtin(ModelSpec::bert), 2);
  EXPECT_EQ(profile.flops_per_call().value(), static_cast<double>(expected));
  EXPECT_TRUE(profile.flops_per_call().complete()) << profile.flops_per_call().DebugString();
  WorkloadSpec per_sample = Builtin(ModelSpec::bert);
  per_sample.set_execution_mode(WorkloadSpec::per_sample);
  EXPECT_EQ(Profile(per_sample, 1).flops_per_call().value(), static_cast<double>(expected));
}

TEST(ProfileWorkload, OperatorWithoutFormulaMakesTheCountALowerBound) {
  torch::jit::Module module("Inverse");
  module.register_parameter("weight", torch::randn({8, 16}), false);
  module.define(R"(
def forward(self, x):
    return torch.mm(torch.inverse(x), self.weight)
)");
  std::ostringstream bytes;
  module.save(bytes);
  WorkloadSpec spec;
  spec.mutable_model()->mutable_torchscript()->set_module_bytes(bytes.str());
  auto* x = spec.add_inputs()->mutable_generated();
  x->add_shape(8);
  x->add_shape(8);
  const OperatorProfile profile = Profile(spec, 2);
  // Only mm is counted: 2 * 8 * 8 * 16 = 2,048. TorchScript runs torch.inverse as
  // aten::linalg_inv, which has no formula.
  EXPECT_EQ(profile.flops_per_call().value(), 2048.0);
  EXPECT_FALSE(profile.flops_per_call().complete());
  ASSERT_GE(profile.flops_per_call().diagnostics_size(), 1);
  EXPECT_NE(profile.flops_per_call().diagnostics(0).find("aten::linalg_inv: no FLOP formula (2 calls in 2 calls)"),
            std::string::npos)
      << profile.flops_per_call().DebugString();
  EXPECT_NE(profile.flops_per_call().diagnostics(0).find("lower bound"), std::string::npos);
  const auto* inverse = Find(profile, "aten::linalg_inv");
  ASSERT_NE(inverse, nullptr);
  EXPECT_FALSE(inverse->has_flops());  // absent: no formula
}

TEST(ProfileWorkload, Errors) {
  EXPECT_EQ(ProfileWorkload({}, 1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ProfileWorkload([] { return c10::IValue(); }, 0).status().code(), absl::StatusCode::kInvalidArgument);
  int runs = 0;
  const auto failing = ProfileWorkload(
      [&] {
        if (++runs > 1) TORCH_CHECK(false, "shape mismatch in layer 3");
        return c10::IValue();
      },
      2);
  EXPECT_EQ(failing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(failing.status().message().find("shape mismatch in layer 3"), absl::string_view::npos);

  // The observer was removed: a later profile works, and a nested one is refused.
  absl::Status nested;
  const auto outer = ProfileWorkload(
      [&] {
        nested = ProfileWorkload([] { return c10::IValue(); }, 1).status();
        return c10::IValue(torch::ones({2}) + 1);
      },
      1);
  ASSERT_TRUE(outer.ok()) << outer.status();
  EXPECT_EQ(nested.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(Find(*outer, "aten::add"), nullptr);
}

}  // namespace
}  // namespace torchscan::passes
