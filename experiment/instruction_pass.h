// The instruction-count pass of a job's runs (passes/instruction_count.h), after every other
// diagnostic pass: one phase "instructions" in which each run's child counts under callgrind,
// all runs at once (one thread each: nothing is timed any more, and valgrind runs each child
// on one core). Each report gets its InstructionCounts, the metric "instructions_per_call"
// among its totals (so comparisons have its delta, withheld like every delta) and, when the
// count failed or did not repeat, a warning. No LibTorch.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/phase_timeline.h"
#include "passes/instruction_count.h"
#include "proto/report.pb.h"
#include "proto/workload.pb.h"

namespace torchscan::experiment {

struct InstructionRun {
  const v1::WorkloadSpec* spec;  // what the child rebuilds
  v1::BenchmarkReport* report;   // where the counts go
};

// Must be called from the thread that runs LibTorch while it runs none (the children are
// forked from here and from threads started here, process/spawn.h). `on_phase` may be empty.
void AddInstructionCounts(const std::vector<InstructionRun>& runs, const std::string& child_path,
                          const passes::InstructionOptions& options, PhaseTimeline& timeline,
                          const std::function<void(const std::string&)>& on_phase);

// The metric the report's totals carry: instructions per call, complete with a count.
v1::MetricResult InstructionsMetric(const v1::InstructionCounts& counts);

}  // namespace torchscan::experiment
