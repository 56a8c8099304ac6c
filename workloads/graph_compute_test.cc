#include "workloads/graph_compute.h"

#include <gtest/gtest.h>

namespace torchscan::workloads {
namespace {

using Runs = GraphComputeNode::Runs;

GraphComputeNode Node(std::string kind, std::optional<int64_t> flops, bool observable = true,
                      Runs runs = Runs::kOncePerForward) {
  GraphComputeNode node;
  node.kind = std::move(kind);
  node.flops = flops;
  node.observable = observable;
  node.runs = runs;
  node.where = runs == Runs::kConditionally     ? "inside prim::If"
               : runs == Runs::kOnAnotherThread ? "in a prim::fork subgraph"
                                                : "";
  node.detail = flops ? "[4, 3, 16, 16] [16, 3, 3, 3]" : "the shape of %12 is not static";
  return node;
}

bool Mentions(const FlopReconciliation& r, const std::string& text) {
  for (const std::string& d : r.diagnostics) {
    if (d.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(ReconcileGraphCompute, JitOnlyConvolutionsAreCountedFromTheGraph) {
  // Two prim::mkldnn_convolution nodes (never dispatched) and a matmul the observers counted.
  GraphCompute graph;
  graph.nodes = {Node("prim::mkldnn_convolution", 221184, false), Node("prim::mkldnn_convolution", 2359296, false),
                 Node("aten::matmul", 655360)};
  ObservedOperators observed;
  observed.profiled_calls = 3;
  observed.calls = {{"aten::matmul", 3}, {"aten::mm", 3}};
  const FlopReconciliation r = ReconcileGraphCompute(graph, observed);
  EXPECT_FALSE(r.incomplete);
  EXPECT_EQ(r.added_flops, 3 * (221184 + 2359296));  // over the 3 profiled calls
  EXPECT_EQ(r.added_by_kind.at("prim::mkldnn_convolution"), 3 * (221184 + 2359296));
  EXPECT_EQ(r.added_by_kind.count("aten::matmul"), 0u);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_TRUE(Mentions(r, "prim::mkldnn_convolution: not seen by the RecordFunction observers (a JIT-only operator"));
  EXPECT_TRUE(Mentions(r, "2 graph nodes counted from the graph's static shapes"));
  EXPECT_TRUE(Mentions(r, "2580480 FLOPs per call"));
}

TEST(ReconcileGraphCompute, PerSampleForwardsMultiplyTheGraphCount) {
  GraphCompute graph;
  graph.forwards_per_call = 4;
  graph.nodes = {Node("prim::mkldnn_convolution", 1000, false)};
  ObservedOperators observed;
  observed.profiled_calls = 2;
  const FlopReconciliation r = ReconcileGraphCompute(graph, observed);
  EXPECT_FALSE(r.incomplete);
  EXPECT_EQ(r.added_flops, 1000 * 4 * 2);
  EXPECT_TRUE(Mentions(r, "4000 FLOPs per call"));
}

TEST(ReconcileGraphCompute, NodesWithoutStaticShapesMakeTheCountIncomplete) {
  GraphCompute graph;
  graph.nodes = {Node("prim::mkldnn_convolution", 1000, false), Node("prim::mkldnn_convolution", std::nullopt, false)};
  const FlopReconciliation r = ReconcileGraphCompute(graph, ObservedOperators());
  EXPECT_TRUE(r.incomplete);
  EXPECT_EQ(r.added_flops, 0);  // a kind is counted from the graph only as a whole
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_TRUE(Mentions(r, "prim::mkldnn_convolution: not seen"));
  EXPECT_TRUE(Mentions(r, "its shapes are not static (the shape of %12 is not static)"));
  EXPECT_TRUE(Mentions(r, "flops_per_call is a lower bound"));
}

TEST(ReconcileGraphCompute, ConditionalJitOnlyNodesAreUnknown) {
  GraphCompute graph;
  graph.nodes = {Node("prim::mkldnn_convolution", 1000, false, Runs::kConditionally)};
  const FlopReconciliation r = ReconcileGraphCompute(graph, ObservedOperators());
  EXPECT_TRUE(r.incomplete);
  EXPECT_EQ(r.added_flops, 0);
  EXPECT_TRUE(Mentions(r, "prim::mkldnn_convolution: a graph node inside prim::If"));
  EXPECT_TRUE(Mentions(r, "how often it runs is unknown"));
}

TEST(ReconcileGraphCompute, DispatchedOperatorsTheObserversCountedAreLeftAlone) {
  // aten::linear in an If branch that did not run, and one that ran: S = 2 calls >= E = 1 x 2.
  GraphCompute graph;
  graph.nodes = {Node("aten::linear", 500), Node("aten::linear", 700, true, Runs::kConditionally),
                 Node("aten::conv2d", 900, true, Runs::kConditionally)};
  ObservedOperators observed;
  observed.profiled_calls = 2;
  observed.calls = {{"aten::linear", 2}};
  const FlopReconciliation r = ReconcileGraphCompute(graph, observed);
  EXPECT_FALSE(r.incomplete);
  EXPECT_EQ(r.added_flops, 0);
  EXPECT_TRUE(r.diagnostics.empty());
}

TEST(ReconcileGraphCompute, DispatchedOperatorsSeenTooRarelyAreFlagged) {
  GraphCompute graph;
  graph.nodes = {Node("aten::linear", 500), Node("aten::linear", 700)};
  ObservedOperators observed;
  observed.calls = {{"aten::linear", 1}};
  const FlopReconciliation r = ReconcileGraphCompute(graph, observed);
  EXPECT_TRUE(r.incomplete);
  EXPECT_TRUE(Mentions(r, "aten::linear: the graph runs it 2 times per call, the observers saw 1"));
}

TEST(ReconcileGraphCompute, PrepackedOperatorsSeenWithoutFormulaAreResolvedFromTheGraph) {
  GraphCompute graph;
  graph.nodes = {Node("prepacked::conv2d_clamp_run", 221184), Node("prepacked::linear_clamp_run", 163840)};
  ObservedOperators observed;
  observed.profiled_calls = 2;
  observed.calls = {{"prepacked::conv2d_clamp_run", 2}, {"prepacked::linear_clamp_run", 2}};
  observed.without_formula = observed.calls;
  const FlopReconciliation r = ReconcileGraphCompute(graph, observed);
  EXPECT_FALSE(r.incomplete);
  EXPECT_EQ(r.added_flops, 2 * (221184 + 163840));
  EXPECT_EQ(r.resolved, (std::set<std::string>{"prepacked::conv2d_clamp_run", "prepacked::linear_clamp_run"}));
  EXPECT_TRUE(Mentions(r, "prepacked::linear_clamp_run: no FLOP formula for its observed calls; 1 graph node"));
}

TEST(ReconcileGraphCompute, PrepackedOperatorsTheGraphCannotCountStayWithoutFormula) {
  // Not static, or seen more often than the graph's nodes explain: the observers' verdict stands.
  GraphCompute graph;
  graph.nodes = {Node("prepacked::conv2d_clamp_run", std::nullopt), Node("prepacked::linear_clamp_run", 100)};
  ObservedOperators observed;
  observed.calls = {{"prepacked::conv2d_clamp_run", 1}, {"prepacked::linear_clamp_run", 3}};
  observed.without_formula = observed.calls;
  const FlopReconciliation r = ReconcileGraphCompute(graph, observed);
  EXPECT_FALSE(r.incomplete);  // the profile's own "no FLOP formula" entries keep it incomplete
  EXPECT_EQ(r.added_flops, 0);
  EXPECT_TRUE(r.resolved.empty());
  EXPECT_TRUE(r.diagnostics.empty());
}

TEST(ReconcileGraphCompute, UnseenDispatchedNodesAreCountedFromTheGraphOrFlagged) {
  // Once-per-forward nodes that must have run but never reached the observers.
  GraphCompute graph;
  graph.nodes = {Node("prepacked::linear_clamp_run", 300), Node("aten::mm", std::nullopt)};
  const FlopReconciliation r = ReconcileGraphCompute(graph, ObservedOperators());
  EXPECT_EQ(r.added_flops, 300);
  EXPECT_TRUE(Mentions(r, "prepacked::linear_clamp_run: not seen by the RecordFunction observers; 1 graph node"));
  EXPECT_TRUE(r.incomplete);
  EXPECT_TRUE(Mentions(r, "aten::mm: not seen by the RecordFunction observers and its shapes are not static"));
}

TEST(ReconcileGraphCompute, ForkedNodesAreCountedFromTheGraph) {
  GraphCompute graph;
  graph.nodes = {Node("aten::linear", 500, true, Runs::kOnAnotherThread),
                 Node("aten::mm", std::nullopt, true, Runs::kOnAnotherThread)};
  const FlopReconciliation r = ReconcileGraphCompute(graph, ObservedOperators());
  EXPECT_EQ(r.added_flops, 500);
  EXPECT_TRUE(Mentions(r, "aten::linear: runs in a prim::fork subgraph, which the observers do not see; 1 graph node"));
  EXPECT_TRUE(r.incomplete);
  EXPECT_TRUE(Mentions(r, "aten::mm: runs in a prim::fork subgraph, which the observers do not see and its shapes"));
}

TEST(ReconcileGraphCompute, ScanErrorsAndOverflowAreIncomplete) {
  GraphCompute broken;
  broken.error = "the module has no method 'encode'";
  FlopReconciliation r = ReconcileGraphCompute(broken, ObservedOperators());
  EXPECT_TRUE(r.incomplete);
  EXPECT_TRUE(Mentions(r, "could not be scanned"));
  EXPECT_TRUE(Mentions(r, "no method 'encode'"));

  GraphCompute huge;
  huge.forwards_per_call = int64_t{1} << 40;
  huge.nodes = {Node("prim::mkldnn_convolution", int64_t{1} << 40, false)};
  r = ReconcileGraphCompute(huge, ObservedOperators());
  EXPECT_TRUE(r.incomplete);
  EXPECT_EQ(r.added_flops, 0);
}

TEST(IsComputeKind, CoversFormulasAndVariantsWithoutOne) {
  EXPECT_TRUE(IsComputeKind("aten::linear"));
  EXPECT_TRUE(IsComputeKind("prim::mkldnn_convolution"));
  EXPECT_TRUE(IsComputeKind("prepacked::linear_clamp_run"));
  EXPECT_TRUE(IsComputeKind("mkldnn_prepacked::conv2d_run"));
  EXPECT_TRUE(IsComputeKind("quantized::conv2d"));
  EXPECT_FALSE(IsComputeKind("aten::relu_"));
  EXPECT_FALSE(IsComputeKind("aten::to_dense"));
}

}  // namespace
}  // namespace torchscan::workloads
