#include "core/instruction_diff.h"

#include <algorithm>
#include <map>
#include <vector>

namespace torchscan {
namespace {

bool Counted(const v1::BenchmarkReport& r) { return r.has_instructions(); }

// Self counts by row name, and the value standing for a row the side did not keep.
struct Rows {
  std::map<std::string, double> self;
  double absent = 0;
};

Rows RowsOf(const v1::InstructionCounts& counts) {
  Rows rows;
  for (const v1::FunctionCount& f : counts.functions())
    if (f.name() != "[other functions]") rows.self[f.name()] = f.self();
  rows.absent = counts.functions_threshold() / 2;
  return rows;
}

}  // namespace

v1::InstructionDiff DiffInstructions(const v1::BenchmarkReport& before, const v1::BenchmarkReport& after,
                                     const std::string& withheld_reason) {
  v1::InstructionDiff diff;
  if (!Counted(before) && !Counted(after)) return diff;
  const v1::InstructionCounts& b = before.instructions();
  const v1::InstructionCounts& a = after.instructions();
  diff.set_note(
      "Instructions per call under callgrind: deterministic CPU work, beside the latency label and the paired "
      "claim, never deciding them. They say nothing about GPU kernels, memory bandwidth or parallel speed-up.");
  std::string why = withheld_reason;
  if (why.empty() && (!Counted(before) || !Counted(after)))
    why = std::string("only the ") + (Counted(before) ? "baseline" : "candidate") + " was counted";
  if (why.empty() && (!b.complete() || !a.complete()))
    why = std::string("the ") + (!b.complete() ? "baseline" : "candidate") + "'s count is incomplete (" +
          (!b.complete() ? (b.diagnostics().empty() ? "" : b.diagnostics(0))
                         : (a.diagnostics().empty() ? "" : a.diagnostics(0))) +
          ")";
  if (why.empty() && !(b.instructions() > 0)) why = "the baseline counted no instructions";
  if (!why.empty()) {
    diff.set_known(false);
    diff.set_unknown_reason(why);
    return diff;
  }
  diff.set_known(true);
  diff.set_before(b.instructions());
  diff.set_after(a.instructions());
  diff.set_delta(a.instructions() - b.instructions());
  diff.set_relative_change(diff.delta() / b.instructions());
  diff.set_spread(std::max(b.spread(), a.spread()));
  if (b.has_estimated_cycles() && a.has_estimated_cycles() && b.estimated_cycles() > 0)
    diff.set_estimated_cycles_change(a.estimated_cycles() / b.estimated_cycles() - 1);

  const Rows rb = RowsOf(b), ra = RowsOf(a);
  std::map<std::string, std::pair<double, double>> both;
  for (const auto& [name, self] : rb.self) both[name] = {self, ra.absent};
  for (const auto& [name, self] : ra.self) {
    auto [it, added] = both.emplace(name, std::make_pair(rb.absent, self));
    if (!added) it->second.second = self;
  }
  std::vector<v1::FunctionDelta> rows;
  for (const auto& [name, sides] : both) {
    v1::FunctionDelta d;
    d.set_name(name);
    d.set_before(sides.first);
    d.set_after(sides.second);
    d.set_delta(sides.second - sides.first);
    if (d.delta() != 0) rows.push_back(std::move(d));
  }
  std::sort(rows.begin(), rows.end(), [](const v1::FunctionDelta& x, const v1::FunctionDelta& y) {
    return x.delta() != y.delta() ? x.delta() > y.delta() : x.name() < y.name();
  });
  for (const v1::FunctionDelta& d : rows)
    if (d.delta() > 0 && diff.increases_size() < kInstructionDiffRows) *diff.add_increases() = d;
  for (auto it = rows.rbegin(); it != rows.rend(); ++it)
    if (it->delta() < 0 && diff.decreases_size() < kInstructionDiffRows) *diff.add_decreases() = *it;
  return diff;
}

bool HasInstructionDiff(const v1::Comparison& comparison) {
  return comparison.instructions().known() || !comparison.instructions().unknown_reason().empty();
}

}  // namespace torchscan
