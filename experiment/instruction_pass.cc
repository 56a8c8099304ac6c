#include "experiment/instruction_pass.h"

#include <thread>

#include "absl/strings/str_format.h"
#include "proto/spec_limits.h"

namespace torchscan::experiment {
namespace {

void AddWarnings(v1::BenchmarkReport* report) {
  const v1::InstructionCounts& c = report->instructions();
  if (!c.complete()) {
    v1::Warning* w = report->add_warnings();
    w->set_code("instructions_unavailable");
    w->set_message("No instruction count: " +
                   (c.diagnostics().empty() ? std::string("unknown reason") : c.diagnostics(0)));
    return;
  }
  if (c.spread() > kInstructionSpreadLimit) {
    v1::Warning* w = report->add_warnings();
    w->set_code("counts_not_repeatable");
    w->set_message(absl::StrFormat(
        "The instruction count differed by %.2f %% between two counted loops of the same calls (more than %.1f %%): "
        "data-dependent control flow, threads or caches that change between calls; treat instruction deltas "
        "smaller than that as noise.",
        100 * c.spread(), 100 * kInstructionSpreadLimit));
  }
}

}  // namespace

v1::MetricResult InstructionsMetric(const v1::InstructionCounts& counts) {
  v1::MetricResult m;
  m.set_name("instructions_per_call");
  m.set_unit("instructions");
  m.set_method("callgrind Ir in a fresh child, empty loop subtracted");
  m.set_scope(counts.scope());
  m.set_complete(counts.complete());
  if (counts.complete() && counts.has_instructions()) m.set_value(counts.instructions());
  for (const std::string& d : counts.diagnostics()) m.add_diagnostics(d);
  return m;
}

void AddInstructionCounts(const std::vector<InstructionRun>& runs, const std::string& child_path,
                          const passes::InstructionOptions& options, PhaseTimeline& timeline,
                          const std::function<void(const std::string&)>& on_phase) {
  if (runs.empty()) return;
  timeline.Begin("instructions");
  if (on_phase) on_phase("instructions");
  std::vector<v1::InstructionCounts> counts(runs.size());
  {
    std::vector<std::thread> others;
    for (size_t i = 1; i < runs.size(); ++i)
      others.emplace_back([&, i] { counts[i] = passes::CountInstructions(*runs[i].spec, child_path, options); });
    counts[0] = passes::CountInstructions(*runs[0].spec, child_path, options);
    for (std::thread& t : others) t.join();
  }
  timeline.End();
  for (size_t i = 0; i < runs.size(); ++i) {
    *runs[i].report->mutable_instructions() = std::move(counts[i]);
    *runs[i].report->add_totals() = InstructionsMetric(runs[i].report->instructions());
    AddWarnings(runs[i].report);
  }
}

}  // namespace torchscan::experiment
