#include "workloads/graph_compute.h"

#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "workloads/flop_formulas.h"
#include "workloads/operator_classes.h"

namespace torchscan::workloads {
namespace {

using Runs = GraphComputeNode::Runs;

constexpr char kLowerBound[] = "its FLOPs are not counted, flops_per_call is a lower bound";

int64_t Count(const std::map<std::string, int64_t>& map, const std::string& key) {
  const auto it = map.find(key);
  return it == map.end() ? 0 : it->second;
}

std::optional<int64_t> Multiply(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

std::string Nodes(size_t n) { return absl::StrCat(n, n == 1 ? " graph node" : " graph nodes"); }

std::string Unseen(const GraphComputeNode& node) {
  return node.observable ? "not seen by the RecordFunction observers"
                         : "not seen by the RecordFunction observers (a JIT-only operator, not dispatched)";
}

// FLOPs of `nodes` executed `executions` times each, or nullopt with the first node whose FLOPs
// are not static (or overflow).
std::optional<int64_t> Total(const std::vector<const GraphComputeNode*>& nodes, std::optional<int64_t> executions,
                             const GraphComputeNode** not_static) {
  int64_t total = 0;
  for (const GraphComputeNode* node : nodes) {
    const std::optional<int64_t> each = node->flops && executions ? Multiply(*node->flops, *executions) : std::nullopt;
    if (!each || __builtin_add_overflow(total, *each, &total)) {
      *not_static = node;
      return std::nullopt;
    }
  }
  return total;
}

class Reconciler {
 public:
  Reconciler(const GraphCompute& graph, const ObservedOperators& observed) : graph_(graph), observed_(observed) {}

  FlopReconciliation Run() {
    if (!graph_.error.empty()) {
      Missing(absl::StrCat("the TorchScript graph could not be scanned for compute the observers cannot see (",
                           graph_.error, "): flops_per_call may be a lower bound"));
    }
    std::vector<std::string> order;
    std::map<std::string, std::vector<const GraphComputeNode*>> by_kind;
    for (const GraphComputeNode& node : graph_.nodes) {
      if (by_kind.count(node.kind) == 0) order.push_back(node.kind);
      by_kind[node.kind].push_back(&node);
    }
    for (const std::string& kind : order) Kind(kind, by_kind[kind]);
    return std::move(out_);
  }

 private:
  void Missing(std::string diagnostic) {
    out_.incomplete = true;
    out_.diagnostics.push_back(std::move(diagnostic));
  }

  int64_t PerCall(int64_t total) const { return total / observed_.profiled_calls; }

  void Add(const std::string& kind, int64_t total, std::string diagnostic) {
    out_.added_flops += total;
    out_.added_by_kind[kind] += total;
    out_.diagnostics.push_back(std::move(diagnostic));
  }

  std::optional<int64_t> Executions() const { return Multiply(graph_.forwards_per_call, observed_.profiled_calls); }

  void AddFromGraph(const std::string& kind, const std::vector<const GraphComputeNode*>& nodes, int64_t total,
                    const std::string& why) {
    Add(kind, total,
        absl::StrCat(kind, ": ", why, "; ", Nodes(nodes.size()), " counted from the graph's static shapes (",
                     nodes.front()->detail, nodes.size() > 1 ? ", ..." : "", "): ", PerCall(total), " FLOPs per call"));
  }

  // Counts `nodes` (each runs once per forward) from the graph, or reports one whose shapes are
  // not static.
  void CountFromGraph(const std::string& kind, const std::vector<const GraphComputeNode*>& nodes,
                      const std::string& why) {
    if (nodes.empty()) return;
    const GraphComputeNode* not_static = nullptr;
    const std::optional<int64_t> total = Total(nodes, Executions(), &not_static);
    if (!total) {
      Missing(
          absl::StrCat(kind, ": ", why, " and its shapes are not static (", not_static->detail, "): ", kLowerBound));
      return;
    }
    AddFromGraph(kind, nodes, *total, why);
  }

  void Kind(const std::string& kind, const std::vector<const GraphComputeNode*>& nodes) {
    std::vector<const GraphComputeNode*> once, conditional, forked;
    for (const GraphComputeNode* node : nodes) {
      (node->runs == Runs::kOncePerForward  ? once
       : node->runs == Runs::kConditionally ? conditional
                                            : forked)
          .push_back(node);
    }
    const bool observable = nodes.front()->observable;  // the same for every node of a kind
    const bool formula = ClassifyOperator(kind) == FlopClass::kFormula;
    const int64_t seen = Count(observed_.calls, kind);
    const int64_t uncounted = Count(observed_.without_formula, kind);
    const int64_t expected = static_cast<int64_t>(once.size()) * graph_.forwards_per_call * observed_.profiled_calls;

    for (const GraphComputeNode* node : forked) {
      CountFromGraph(kind, {node}, absl::StrCat("runs ", node->where, ", which the observers do not see"));
    }
    if (seen == 0) {  // ran where the observers cannot see, or (dispatched, conditional) did not run
      CountFromGraph(kind, once, Unseen(*nodes.front()));
      if (!observable) {
        for (const GraphComputeNode* node : conditional) {
          Missing(absl::StrCat(kind, ": a graph node ", node->where, ", ", Unseen(*node),
                               ": how often it runs is unknown; ", kLowerBound));
        }
      }
      return;
    }
    if (formula) {  // the observers counted its calls
      if (seen < expected) {
        Missing(absl::StrCat(kind, ": the graph runs it ", PerCall(expected), " times per call, the observers saw ",
                             PerCall(seen), ": the other calls ran where the observers do not see them; ",
                             kLowerBound));
      }
      return;
    }
    // Dispatched without formula: the observers listed its calls as uncounted; the graph takes
    // over only when they are exactly its once-per-forward nodes' calls and all are static.
    const GraphComputeNode* not_static = nullptr;
    const std::optional<int64_t> total = Total(once, Executions(), &not_static);
    if (uncounted == seen && seen == expected && conditional.empty() && total) {
      AddFromGraph(kind, once, *total, "no FLOP formula for its observed calls");
      out_.resolved.insert(kind);
    }
  }

  const GraphCompute& graph_;
  const ObservedOperators& observed_;
  FlopReconciliation out_;
};

}  // namespace

bool IsComputeKind(std::string_view kind) {
  // A table of operator names: it reads better packed than one name per line.
  // clang-format off
  static const auto* without_formula = new std::unordered_set<std::string_view>{
      "mkldnn_prepacked::conv2d_run", "prepacked::conv2d_clamp_run", "prepacked::conv2d_transpose_clamp_run",
      "prepacked::linear_clamp_run", "quantized::linear", "quantized::linear_relu", "quantized::linear_dynamic",
      "quantized::linear_relu_dynamic", "quantized::linear_dynamic_fp16", "quantized::conv1d", "quantized::conv2d",
      "quantized::conv3d", "quantized::conv1d_relu", "quantized::conv2d_relu", "quantized::conv3d_relu",
      "quantized::conv_transpose1d", "quantized::conv_transpose2d", "quantized::conv_transpose3d",
      "quantized::matmul", "aten::einsum", "aten::bilinear", "aten::tensordot", "aten::chain_matmul",
      "aten::linalg_multi_dot", "aten::lstm", "aten::gru", "aten::rnn_tanh", "aten::rnn_relu", "aten::lstm_cell",
      "aten::gru_cell", "aten::rnn_tanh_cell", "aten::rnn_relu_cell", "aten::fbgemm_linear_fp16_weight",
      "aten::fbgemm_linear_int8_weight", "aten::_addmm_activation", "aten::slow_conv3d", "aten::thnn_conv2d",
      "aten::slow_conv_transpose2d", "aten::slow_conv_transpose3d", "aten::_conv_depthwise2d",
      "aten::conv_tbc", "aten::_nnpack_spatial_convolution",
  };
  // clang-format on
  return ClassifyOperator(kind) == FlopClass::kFormula || without_formula->count(kind) != 0;
}

FlopReconciliation ReconcileGraphCompute(const GraphCompute& graph, const ObservedOperators& observed) {
  return Reconciler(graph, observed).Run();
}

}  // namespace torchscan::workloads
