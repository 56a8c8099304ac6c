// ScanGraphCompute on modules defined, frozen and optimized in the test.
#include "workloads/graph_scan.h"

#include <gtest/gtest.h>
#include <torch/csrc/jit/passes/xnnpack_rewrite.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "workloads/test_cnn.h"

namespace torchscan::workloads {
namespace {

using Runs = GraphComputeNode::Runs;

torch::jit::Module Cnn() {
  torch::jit::Module m = TestCnn();
  m.eval();
  return m;
}

torch::jit::Module Optimized(const torch::jit::Module& m) {
  torch::jit::Module frozen = torch::jit::freeze(m);
  return torch::jit::optimize_for_inference(frozen);
}

std::vector<std::string> Kinds(const GraphCompute& g) {
  std::vector<std::string> kinds;
  for (const auto& n : g.nodes) kinds.push_back(n.kind);
  return kinds;
}

TEST(ScanGraphCompute, OptimizedCnnRunsJitOnlyConvolutionsWithStaticFlops) {
  const GraphCompute g = ScanGraphCompute(Optimized(Cnn()), "forward", {{2, 3, 16, 16}}, 1);
  ASSERT_TRUE(g.error.empty()) << g.error;
  ASSERT_EQ(Kinds(g),
            (std::vector<std::string>{"prim::mkldnn_convolution", "prim::mkldnn_convolution", "aten::matmul"}));
  EXPECT_FALSE(g.nodes[0].observable);  // not dispatched: RecordFunction never sees it
  EXPECT_EQ(g.nodes[0].runs, Runs::kOncePerForward);
  EXPECT_EQ(g.nodes[0].flops, 2 * kTestCnnConv1Flops);
  EXPECT_EQ(g.nodes[0].detail, "[2, 3, 16, 16] [16, 3, 3, 3] [16]");
  EXPECT_EQ(g.nodes[1].flops, 2 * kTestCnnConv2Flops);  // its input shape followed through relu_
  EXPECT_TRUE(g.nodes[2].observable);
  EXPECT_EQ(g.nodes[2].flops, 2 * kTestCnnLinearFlops);  // through to_dense and flatten
  EXPECT_EQ(g.nodes[2].detail, "[2, 8192] [8192, 10]");
  EXPECT_EQ(g.method, "forward");
  EXPECT_EQ(g.forwards_per_call, 1);
}

TEST(ScanGraphCompute, PlainModuleReadsWeightsFromAttributes) {
  const GraphCompute g = ScanGraphCompute(Cnn(), "forward", {{1, 3, 16, 16}}, 3);
  ASSERT_TRUE(g.error.empty()) << g.error;
  ASSERT_EQ(Kinds(g), (std::vector<std::string>{"aten::conv2d", "aten::conv2d", "aten::linear"}));
  EXPECT_TRUE(g.nodes[0].observable);
  EXPECT_EQ(g.nodes[0].flops, kTestCnnConv1Flops);
  EXPECT_EQ(g.nodes[1].flops, kTestCnnConv2Flops);
  EXPECT_EQ(g.nodes[2].flops, kTestCnnLinearFlops);
  EXPECT_EQ(g.forwards_per_call, 3);
}

TEST(ScanGraphCompute, UnknownInputShapesLeaveFlopsUnknown) {
  const GraphCompute g = ScanGraphCompute(Optimized(Cnn()), "forward", {}, 1);
  ASSERT_EQ(g.nodes.size(), 3u);
  for (const auto& node : g.nodes) {
    EXPECT_EQ(node.flops, std::nullopt) << node.kind;
    EXPECT_NE(node.detail.find("is not static"), std::string::npos) << node.detail;
  }
}

TEST(ScanGraphCompute, CalledMethodsBranchesAndLoops) {
  torch::jit::Module child("Child");
  child.register_parameter("w", torch::randn({4, 8}), false);
  child.define(R"(
def forward(self, x):
    return torch.linear(x, self.w)
)");
  torch::jit::Module parent("Parent");
  parent.register_module("child", child);
  parent.register_parameter("v", torch::randn({8, 8}), false);
  parent.define(R"(
def forward(self, x):
    y = self.child.forward(x)
    if bool(x.sum() > 0):
        x = torch.mm(x, self.v)
    for i in range(3):
        x = torch.matmul(x, self.v)
    return y, x
)");
  parent.eval();
  const GraphCompute g = ScanGraphCompute(parent, "forward", {{5, 8}}, 1);
  ASSERT_TRUE(g.error.empty()) << g.error;
  ASSERT_EQ(Kinds(g), (std::vector<std::string>{"aten::linear", "aten::mm", "aten::matmul"}));
  EXPECT_EQ(g.nodes[0].runs, Runs::kOncePerForward);  // the child's forward, expanded at its call site
  EXPECT_EQ(g.nodes[0].flops, 2 * 5 * 8 * 4);
  EXPECT_EQ(g.nodes[1].runs, Runs::kConditionally);
  EXPECT_EQ(g.nodes[1].where, "inside prim::If");
  EXPECT_EQ(g.nodes[1].flops, 2 * 5 * 8 * 8);  // shapes from outside the branch are still known
  EXPECT_EQ(g.nodes[2].runs, Runs::kConditionally);
  EXPECT_EQ(g.nodes[2].where, "inside prim::Loop");
  EXPECT_EQ(g.nodes[2].flops, std::nullopt);  // a loop-carried value: its shape is not followed
}

TEST(ScanGraphCompute, PrepackedContextsGiveTheirSizes) {
  // optimizeForMobile (XNNPACK) folds the weights into prepacked contexts the graph passes to
  // prepacked::conv2d_clamp_run / linear_clamp_run.
  const torch::jit::Module mobile = torch::jit::optimizeForMobile(Cnn());
  const GraphCompute g = ScanGraphCompute(mobile, "forward", {{2, 3, 16, 16}}, 1);
  ASSERT_TRUE(g.error.empty()) << g.error;
  ASSERT_EQ(Kinds(g), (std::vector<std::string>{"prepacked::conv2d_clamp_run", "prepacked::conv2d_clamp_run",
                                                "prepacked::linear_clamp_run"}));
  EXPECT_TRUE(g.nodes[0].observable);
  EXPECT_EQ(g.nodes[0].flops, 2 * kTestCnnConv1Flops);
  EXPECT_EQ(g.nodes[1].flops, 2 * kTestCnnConv2Flops);
  EXPECT_EQ(g.nodes[2].flops, 2 * kTestCnnLinearFlops);
  EXPECT_EQ(g.nodes[2].detail, "[2, 8192] [10, 8192] [10]");
}

TEST(ScanGraphCompute, MissingMethodIsAnError) {
  const GraphCompute g = ScanGraphCompute(Cnn(), "encode", {{1, 3, 16, 16}}, 1);
  EXPECT_EQ(g.error, "the module has no method 'encode'");
  EXPECT_TRUE(g.nodes.empty());
}

}  // namespace
}  // namespace torchscan::workloads
