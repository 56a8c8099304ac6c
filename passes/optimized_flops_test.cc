// FLOPs of TorchScript workloads whose graphs run operators the RecordFunction observers cannot
// see: a CNN built from WorkloadSpecs with optimize_for_inference (frozen and optimized by
// BuildWorkload, prim::mkldnn_convolution) must report the FLOPs of the same module unoptimised;
// what cannot be counted must make the count incomplete, naming the operator.
#include <sstream>

#include <gtest/gtest.h>
#include <torch/csrc/jit/passes/xnnpack_rewrite.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "passes/operator_profile.h"
#include "workloads/test_cnn.h"
#include "workloads/workload.h"

namespace torchscan::passes {
namespace {

using torchscan::v1::MetricResult;
using torchscan::v1::WorkloadSpec;

// TestCnn on [2, 3, 16, 16]: 2 x 2,744,320 FLOPs, of which the linear 2 x 163,840.
constexpr double kCnnFlops = 2.0 * workloads::kTestCnnFlops;  // 5,488,640
constexpr double kLinearFlops = 2.0 * workloads::kTestCnnLinearFlops;

std::string Bytes(const torch::jit::Module& m) {
  std::ostringstream out;
  m.save(out);
  return out.str();
}

WorkloadSpec Spec(const std::string& bytes, bool optimize) {
  WorkloadSpec spec;
  spec.mutable_model()->mutable_torchscript()->set_module_bytes(bytes);
  spec.set_optimize_for_inference(optimize);
  auto* input = spec.add_inputs();
  input->set_name("images");
  for (int64_t d : {2, 3, 16, 16}) input->mutable_generated()->add_shape(d);
  return spec;
}

struct Profiled {
  workloads::Workload workload;
  torchscan::v1::OperatorProfile profile;
};

Profiled Profile(const WorkloadSpec& spec, int calls) {
  absl::StatusOr<workloads::Workload> w = workloads::BuildWorkload(spec);
  EXPECT_TRUE(w.ok()) << w.status();
  if (!w.ok()) return {};
  EXPECT_TRUE(w->graph_compute.has_value());
  const auto profile = ProfileWorkload(w->call, calls, w->graph_compute ? &*w->graph_compute : nullptr);
  EXPECT_TRUE(profile.ok()) << profile.status();
  if (!profile.ok()) return {};
  return {*std::move(w), *profile};
}

bool Mentions(const MetricResult& m, const std::string& text) {
  for (const std::string& d : m.diagnostics()) {
    if (d.find(text) != std::string::npos) return true;
  }
  return false;
}

int CountKind(const workloads::GraphCompute& g, const std::string& kind) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.kind == kind;
  return n;
}

TEST(OptimizedFlops, OptimizedCnnReportsThePlainCnnsFlops) {
  const std::string bytes = Bytes(workloads::TestCnn());
  const Profiled plain = Profile(Spec(bytes, false), 3);
  const Profiled optimized = Profile(Spec(bytes, true), 3);

  EXPECT_EQ(plain.profile.flops_per_call().value(), kCnnFlops);
  EXPECT_TRUE(plain.profile.flops_per_call().complete()) << plain.profile.flops_per_call().DebugString();
  EXPECT_EQ(plain.profile.flops_per_call().diagnostics_size(), 0);

  // The optimized graph runs its convolutions as prim::mkldnn_convolution, which the observers
  // never see: alone they count the linear only (the bug this guards against).
  ASSERT_TRUE(optimized.workload.graph_compute.has_value());
  EXPECT_EQ(CountKind(*optimized.workload.graph_compute, "prim::mkldnn_convolution"), 2);
  const auto observers_only = ProfileWorkload(optimized.workload.call, 3);
  ASSERT_TRUE(observers_only.ok()) << observers_only.status();
  EXPECT_EQ(observers_only->flops_per_call().value(), kLinearFlops);

  const MetricResult& flops = optimized.profile.flops_per_call();
  EXPECT_EQ(flops.value(), kCnnFlops);
  EXPECT_TRUE(flops.complete()) << flops.DebugString();
  EXPECT_TRUE(Mentions(flops,
                       "prim::mkldnn_convolution: not seen by the RecordFunction observers (a JIT-only "
                       "operator, not dispatched); 2 graph nodes counted from the graph's static shapes"))
      << flops.DebugString();
  EXPECT_TRUE(Mentions(flops, "5160960 FLOPs per call")) << flops.DebugString();
  EXPECT_EQ(flops.method(), plain.profile.flops_per_call().method());  // comparable: the same counting method
  EXPECT_NE(flops.method().find("from the graph's static shapes"), std::string::npos);
}

TEST(OptimizedFlops, PerSampleOptimizedCnnCountsEveryForward) {
  WorkloadSpec spec = Spec(Bytes(workloads::TestCnn()), true);
  spec.set_execution_mode(WorkloadSpec::per_sample);
  spec.set_keep_batch_dim(true);  // flatten(x, 1) needs the batch dimension
  const Profiled p = Profile(spec, 2);
  ASSERT_TRUE(p.workload.graph_compute.has_value());
  EXPECT_EQ(p.workload.graph_compute->forwards_per_call, 2);
  EXPECT_EQ(p.profile.flops_per_call().value(), kCnnFlops);
  EXPECT_TRUE(p.profile.flops_per_call().complete()) << p.profile.flops_per_call().DebugString();
}

TEST(OptimizedFlops, PrepackedOperatorsSeenWithoutFormulaAreCountedFromTheGraph) {
  // A module saved after XNNPACK's optimizeForMobile: the observers see prepacked::*_run without
  // a formula; the graph's prepacked contexts give their sizes.
  const Profiled p = Profile(Spec(Bytes(torch::jit::optimizeForMobile(workloads::TestCnn())), false), 2);
  const MetricResult& flops = p.profile.flops_per_call();
  EXPECT_EQ(flops.value(), kCnnFlops);
  EXPECT_TRUE(flops.complete()) << flops.DebugString();
  EXPECT_TRUE(Mentions(flops, "prepacked::conv2d_clamp_run: no FLOP formula for its observed calls; 2 graph nodes"));
  bool saw_linear = false;
  for (const auto& op : p.profile.operators()) {
    if (op.name() != "prepacked::linear_clamp_run") continue;
    saw_linear = true;
    EXPECT_EQ(op.flops(), 2 * kLinearFlops);  // the graph's count, over the 2 profiled calls
  }
  EXPECT_TRUE(saw_linear);
}

// flops_per_call of a one-convolution module with weight `w` [8, 3, 3, 3] and `forward`, built
// with optimize_for_inference: its graph must run the convolution as prim::mkldnn_convolution.
MetricResult OptimizedConvolutionFlops(const std::string& name, const std::string& forward) {
  torch::jit::Module m(name);
  m.register_parameter("w", torch::randn({8, 3, 3, 3}), false);
  m.define(forward);
  const Profiled p = Profile(Spec(Bytes(m), true), 1);
  EXPECT_TRUE(p.workload.graph_compute.has_value());
  if (p.workload.graph_compute) {
    EXPECT_EQ(CountKind(*p.workload.graph_compute, "prim::mkldnn_convolution"), 1);
  }
  return p.profile.flops_per_call();
}

TEST(OptimizedFlops, ConvolutionOfADataDependentShapeIsIncompleteAndNamed) {
  // The crop depends on the input's values: no static shape reaches the convolution.
  const MetricResult flops = OptimizedConvolutionFlops("Crop", R"(
def forward(self, x):
    k = 15 + int(bool(x.sum() > 0.0))
    y = torch.relu(torch.conv2d(x[:, :, :k, :k], self.w, None, [1, 1], [1, 1]))
    return y.sum()
)");
  EXPECT_FALSE(flops.complete()) << flops.DebugString();
  EXPECT_TRUE(Mentions(flops, "prim::mkldnn_convolution: not seen by the RecordFunction observers"));
  EXPECT_TRUE(Mentions(flops, "its shapes are not static (the shape of %")) << flops.DebugString();
  EXPECT_TRUE(Mentions(flops, "flops_per_call is a lower bound"));
}

TEST(OptimizedFlops, ConvolutionInABranchIsIncompleteAndNamed) {
  const MetricResult flops = OptimizedConvolutionFlops("Branch", R"(
def forward(self, x):
    if bool(x.sum() > -1000000.0):
        x = torch.relu(torch.conv2d(x, self.w, None, [1, 1], [1, 1]))
    return x.sum()
)");
  EXPECT_FALSE(flops.complete()) << flops.DebugString();
  EXPECT_TRUE(Mentions(flops, "prim::mkldnn_convolution: a graph node inside prim::If")) << flops.DebugString();
}

TEST(OptimizedFlops, BuiltinsHaveNoGraph) {
  WorkloadSpec spec;
  spec.mutable_model()->set_builtin(torchscan::v1::ModelSpec::linear);
  const absl::StatusOr<workloads::Workload> w = workloads::BuildWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_FALSE(w->graph_compute.has_value());
}

}  // namespace
}  // namespace torchscan::passes
