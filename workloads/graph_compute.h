// What a TorchScript method's graph says about its compute (convolutions, matrix products, their
// MKLDNN / prepacked variants), and how it reconciles with the operators RecordFunction observers
// saw in a profile (passes/operator_profile.h). Pure: no LibTorch. graph_scan.h fills a GraphCompute from
// a module; the Workload (workload.h) carries it; ProfileWorkload reconciles.
//
// Why: after torch::jit::freeze + optimize_for_inference a graph runs operators that never reach
// the observers (prim::mkldnn_convolution is a JIT-only operator, not dispatched), and operators
// the observers see without a FLOP formula (prepacked::conv2d_clamp_run). Without the graph such
// FLOPs would be missing from a count that says it is complete.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace torchscan::workloads {

struct GraphComputeNode {
  enum class Runs {
    kOncePerForward,   // in the method's top-level block (or a called method's): once per forward
    kConditionally,    // inside prim::If / prim::Loop: how often per forward is unknown
    kOnAnotherThread,  // in a prim::fork subgraph: once per forward, on a thread the observers do not see
  };
  std::string kind;        // e.g. "prim::mkldnn_convolution", "aten::linear"
  bool observable = true;  // dispatched through the c10 dispatcher: RecordFunction sees its calls
  Runs runs = Runs::kOncePerForward;
  std::string where;             // kConditionally / kOnAnotherThread: e.g. "inside prim::If"
  std::optional<int64_t> flops;  // FLOPs of one execution from static shapes (flop_formulas.h); nullopt: not static
  std::string detail;            // its argument shapes ("[4, 3, 16, 16] [16, 3, 3, 3]"), or why they are not static
};

struct GraphCompute {
  std::string method;                   // the method scanned, e.g. "forward"
  int64_t forwards_per_call = 1;        // method runs per workload call (per_sample: one per sample)
  std::vector<GraphComputeNode> nodes;  // compute nodes in graph order; called methods expanded at their call sites
  std::string error;                    // non-empty: the graph could not be scanned (the count is then incomplete)
};

// Whether a node kind carries compute that a FLOP count must cover: the operators with a formula
// (flop_formulas.h) and the matrix-product / convolution operators without one (MKLDNN prepacked,
// XNNPACK prepacked, quantized, einsum, bilinear, recurrent layers, ...). Never fails.
bool IsComputeKind(std::string_view kind);

// What a profile's observers saw, over `profiled_calls` workload calls.
struct ObservedOperators {
  std::map<std::string, int64_t> calls;            // operator -> calls seen, at any depth
  std::map<std::string, int64_t> without_formula;  // operator -> calls counted as without formula
  int64_t profiled_calls = 1;
};

struct FlopReconciliation {
  int64_t added_flops = 0;                       // FLOPs over all profiled calls counted from the graph
  std::map<std::string, int64_t> added_by_kind;  // the same per operator kind
  std::set<std::string> resolved;                // without-formula operators whose calls the graph counted
  std::vector<std::string> diagnostics;          // what the graph counted, and what is missing
  bool incomplete = false;                       // some compute is neither counted by the observers nor by the graph
};

// Per node kind K of `graph` (E = K's once-per-forward nodes x forwards_per_call x profiled_calls,
// S = observed calls of K):
//  - S == 0 (K is JIT-only, e.g. prim::mkldnn_convolution, or ran where the observers cannot see):
//    each once-per-forward node with static FLOPs is counted from the graph (flops x
//    forwards_per_call x profiled_calls) and a diagnostic says so; a node without static shapes
//    makes the count incomplete with a diagnostic naming K, and so does a JIT-only node inside
//    prim::If / prim::Loop (how often it ran is unknown). A dispatched node inside a branch that
//    was never seen did not run.
//  - K with a formula, S > 0: the observers counted it. S < E: incomplete, a diagnostic names K.
//  - K seen without a formula (e.g. prepacked::linear_clamp_run): when every one of its calls was
//    uncounted (without_formula == S == E), it has no conditional node and every node's FLOPs are
//    static, the graph counts them and K is `resolved` (its "no FLOP formula" diagnostic is
//    replaced); otherwise it stays as the observers left it (incomplete, listed without formula).
//  - Nodes in a prim::fork subgraph: counted from the graph when static, else incomplete.
// A graph with `error` set adds a diagnostic and makes the count incomplete. Counts that would
// overflow int64 are treated as not static. Never fails.
FlopReconciliation ReconcileGraphCompute(const GraphCompute& graph, const ObservedOperators& observed);

}  // namespace torchscan::workloads
