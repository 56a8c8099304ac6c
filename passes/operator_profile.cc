#include "passes/operator_profile.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ATen/record_function.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "workloads/flop_formulas.h"
#include "workloads/operator_classes.h"
#include "workloads/torch_status.h"

namespace torchscan::passes {
namespace {

using Clock = std::chrono::steady_clock;

struct Frame {
  std::string name;
  Clock::time_point start;
  double child_s = 0;           // inclusive time of direct children
  int64_t flops = 0;            // counted at this operator
  bool opened_formula = false;  // this operator's FLOPs were counted: its children's are not
  bool unknown_outermost = false;
  bool opened_zero = false;    // counts 0 by convention: so does what runs inside it
  bool counted_below = false;  // an operator inside this one had its FLOPs counted
  std::string shapes;
};

struct OperatorTotals {
  int64_t calls = 0;
  double total_s = 0;
  double self_s = 0;
  int64_t flops = 0;
  std::map<std::string, int64_t> shapes;
};

struct Session {
  std::vector<Frame> stack;
  int formula_depth = 0;  // open operators whose FLOPs were counted
  int unknown_depth = 0;  // open outermost operators without formula
  int zero_depth = 0;     // open operators that count 0 by convention (their internals too)
  std::map<std::string, OperatorTotals> operators;
  std::map<std::string, int64_t> without_formula;  // name -> uncounted calls
  std::map<std::string, std::string> unfit;        // formula operator -> shapes that did not fit
  int64_t total_flops = 0;
};

thread_local Session* t_session = nullptr;

std::string ShapeText(c10::IntArrayRef sizes) { return absl::StrCat("[", absl::StrJoin(sizes, ", "), "]"); }

// Input shapes of one call, and the arguments the FLOP formulas read.
void Describe(c10::ArrayRef<const c10::IValue> inputs, std::string* shapes, std::vector<workloads::OpArg>* args) {
  std::vector<std::string> parts;
  for (const c10::IValue& v : inputs) {
    try {
      if (v.isTensor()) {
        const at::Tensor& t = v.toTensor();
        if (!t.defined()) {
          args->push_back(workloads::OpArg::None());
        } else if (t.is_nested()) {
          args->push_back(workloads::OpArg::Other());
          parts.push_back("nested");
        } else {
          args->push_back(workloads::OpArg::Tensor(t.sizes().vec()));
          parts.push_back(ShapeText(t.sizes()));
        }
      } else if (v.isTensorList()) {
        args->push_back(workloads::OpArg::Other());
        std::vector<std::string> list;
        for (const at::Tensor& t : v.toTensorVector()) list.push_back(t.defined() ? ShapeText(t.sizes()) : "None");
        const bool same =
            !list.empty() && std::all_of(list.begin(), list.end(), [&](const auto& s) { return s == list[0]; });
        parts.push_back(same ? absl::StrCat(list.size(), "x", list[0])
                             : absl::StrCat("[", absl::StrJoin(list, ", "), "]"));
      } else if (v.isNone()) {
        args->push_back(workloads::OpArg::None());
      } else if (v.isIntList()) {
        args->push_back(workloads::OpArg::IntList(v.toIntVector()));
      } else if (v.isInt()) {
        args->push_back(workloads::OpArg::Int(v.toInt()));
      } else if (v.isBool()) {
        args->push_back(workloads::OpArg::Bool(v.toBool()));
      } else if (v.isString()) {
        args->push_back(workloads::OpArg::String(v.toStringRef()));
      } else {
        args->push_back(workloads::OpArg::Other());
      }
    } catch (...) {  // never let an odd input escape an observer
      args->push_back(workloads::OpArg::Other());
    }
  }
  *shapes = absl::StrJoin(parts, " ");
}

std::unique_ptr<at::ObserverContext> OnStart(const at::RecordFunction& fn) {
  Session* s = t_session;
  if (s == nullptr) return nullptr;
  Frame frame;
  frame.name = fn.name();
  std::vector<workloads::OpArg> args;
  Describe(fn.inputs(), &frame.shapes, &args);
  if (s->formula_depth == 0) {  // not inside an operator whose FLOPs are already counted
    const workloads::FlopClass kind = workloads::ClassifyOperator(frame.name);
    std::optional<int64_t> flops;
    if (kind == workloads::FlopClass::kFormula) {
      flops = workloads::OperatorFlops(frame.name, args);
      if (!flops) s->unfit.emplace(frame.name, frame.shapes);
    }
    if (flops) {
      frame.flops = *flops;
      frame.opened_formula = true;
      ++s->formula_depth;
      s->total_flops += *flops;
    } else if (kind == workloads::FlopClass::kNotCounted) {
      // e.g. aten::batch_norm -> cudnn_batch_norm: the backend op is part of a 0-FLOP op.
      frame.opened_zero = true;
      ++s->zero_depth;
    } else if (s->unknown_depth == 0 && s->zero_depth == 0) {
      frame.unknown_outermost = true;
      ++s->unknown_depth;
    }
  }
  frame.start = Clock::now();
  s->stack.push_back(std::move(frame));
  return nullptr;
}

void OnEnd(const at::RecordFunction&, at::ObserverContext*) {
  const Clock::time_point end = Clock::now();
  Session* s = t_session;
  if (s == nullptr || s->stack.empty()) return;
  Frame frame = std::move(s->stack.back());
  s->stack.pop_back();
  const double total = std::chrono::duration<double>(end - frame.start).count();
  OperatorTotals& totals = s->operators[frame.name];
  ++totals.calls;
  totals.total_s += total;
  totals.self_s += std::max(0.0, total - frame.child_s);
  totals.flops += frame.flops;
  ++totals.shapes[frame.shapes];
  if (frame.opened_formula) --s->formula_depth;
  if (frame.opened_zero) --s->zero_depth;
  if (frame.unknown_outermost) {
    --s->unknown_depth;
    if (!frame.counted_below) ++s->without_formula[frame.name];
  }
  if (!s->stack.empty()) {
    Frame& parent = s->stack.back();
    parent.child_s += total;
    parent.counted_below = parent.counted_below || frame.opened_formula || frame.counted_below;
  }
}

// Installs the observer for this thread and removes it on every exit path.
class ObserverScope {
 public:
  explicit ObserverScope(Session* session) {
    t_session = session;
    handle_ = at::addThreadLocalCallback(
        at::RecordFunctionCallback(OnStart, OnEnd).needsInputs(true).scopes({at::RecordScope::FUNCTION}));
  }
  ~ObserverScope() {
    at::removeCallback(handle_);
    t_session = nullptr;
  }
  ObserverScope(const ObserverScope&) = delete;
  ObserverScope& operator=(const ObserverScope&) = delete;

 private:
  at::CallbackHandle handle_;
};

std::string CallsText(int64_t n) { return absl::StrCat(n, n == 1 ? " call" : " calls"); }

// What the observers saw, in the form ReconcileGraphCompute reads.
workloads::ObservedOperators Observed(const Session& session, int calls) {
  workloads::ObservedOperators observed;
  observed.profiled_calls = calls;
  for (const auto& [name, totals] : session.operators) observed.calls[name] = totals.calls;
  observed.without_formula = session.without_formula;
  return observed;
}

}  // namespace

absl::StatusOr<torchscan::v1::OperatorProfile> ProfileWorkload(const std::function<c10::IValue()>& call, int calls,
                                                               const workloads::GraphCompute* graph) {
  if (!call) return absl::InvalidArgumentError("ProfileWorkload: call is empty");
  if (calls < 1) {
    return absl::InvalidArgumentError(absl::StrCat("ProfileWorkload: calls is ", calls, "; profile at least 1 call"));
  }
  if (t_session != nullptr) {
    return absl::FailedPreconditionError("ProfileWorkload: a profile is already running on this thread");
  }
  if (absl::Status warm = workloads::RunTorch("profile warm-up call", [&] { call(); }); !warm.ok()) return warm;

  Session session;
  absl::Status observed = workloads::RunTorch("profiled call", [&] {
    ObserverScope scope(&session);
    for (int i = 0; i < calls; ++i) call();
  });
  if (!observed.ok()) return observed;
  workloads::FlopReconciliation from_graph;
  if (graph != nullptr) {
    from_graph = workloads::ReconcileGraphCompute(*graph, Observed(session, calls));
    for (const std::string& kind : from_graph.resolved) session.without_formula.erase(kind);
  }

  torchscan::v1::OperatorProfile profile;
  profile.set_profiled_calls(calls);
  std::vector<std::pair<std::string, const OperatorTotals*>> order;
  for (const auto& [name, totals] : session.operators) order.emplace_back(name, &totals);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second->self_s > b.second->self_s; });
  for (const auto& [name, totals] : order) {
    torchscan::v1::OperatorStat* stat = profile.add_operators();
    stat->set_name(name);
    stat->set_calls(totals->calls);
    stat->set_total_time_s(totals->total_s);
    stat->set_self_time_s(totals->self_s);
    std::vector<std::pair<std::string, int64_t>> shapes(totals->shapes.begin(), totals->shapes.end());
    std::stable_sort(shapes.begin(), shapes.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [text, n] : shapes) {
      torchscan::v1::ShapeGroup* group = stat->add_shapes();
      group->set_input_shapes(text);
      group->set_calls(n);
    }
    const workloads::FlopClass kind = workloads::ClassifyOperator(name);
    if (kind == workloads::FlopClass::kFormula) stat->set_flops(static_cast<double>(totals->flops));
    if (kind == workloads::FlopClass::kNotCounted) stat->set_flops(0);
    if (const auto counted = from_graph.added_by_kind.find(name); counted != from_graph.added_by_kind.end()) {
      stat->set_flops(stat->flops() + static_cast<double>(counted->second));
    }
  }

  torchscan::v1::MetricResult* flops = profile.mutable_flops_per_call();
  flops->set_name("flops_per_call");
  flops->set_unit("FLOP");
  flops->set_value(static_cast<double>(session.total_flops + from_graph.added_flops) / calls);
  flops->set_method(absl::StrCat(
      "formulas over the argument shapes seen by RecordFunction observers, counted at the outermost operator "
      "with a formula; TorchScript graph compute nodes the observers cannot see (JIT-only operators such as "
      "prim::mkldnn_convolution after optimize_for_inference) or see without formula (prepacked operators) are "
      "counted by the same formulas from the graph's static shapes, as the diagnostics list; ",
      workloads::kFlopConvention));
  flops->set_scope(absl::StrCat("one workload call (the FLOPs of ", CallsText(calls), " divided by ", calls,
                                "); operators run on the calling thread"));
  flops->set_complete(session.without_formula.empty() && !from_graph.incomplete);
  for (const auto& [name, n] : session.without_formula) {
    flops->add_diagnostics(absl::StrCat(name, ": no FLOP formula (", CallsText(n), " in ", CallsText(calls),
                                        "), its FLOPs are not counted: flops_per_call is a lower bound"));
  }
  for (const auto& [name, shapes] : session.unfit) {
    flops->add_diagnostics(absl::StrCat(name, ": arguments ", shapes.empty() ? "(none)" : shapes,
                                        " do not fit its FLOP formula; such calls are treated as without formula"));
  }
  for (const std::string& d : from_graph.diagnostics) flops->add_diagnostics(d);
  profile.set_note(absl::StrCat(
      "profiler times include instrumentation and are not clean workload timing; operator calls, times and FLOPs "
      "are totals over profiled_calls workload calls after one unprofiled warm-up call; FLOPs: ",
      workloads::kFlopConvention,
      "; FLOPs are attributed to the outermost operator with a formula (nested operators show 0)"));
  return profile;
}

}  // namespace torchscan::passes
