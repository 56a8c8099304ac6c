// From callgrind dumps to a report's InstructionCounts: per-call figures after the empty
// loop's cost is subtracted, the spread between repeats, cache-simulation figures, the top
// inclusive functions and the grouped self counts (frame_groups.h). Pure: the runner
// (instruction_count.h) gives it the parsed dumps.
#pragma once

#include <vector>

#include "passes/callgrind_profile.h"
#include "proto/report.pb.h"

namespace torchscan::passes {

// One counted repeat: the empty loop's dump and the workload loop's, each of `calls` calls.
struct CountedRepeat {
  CallgrindProfile empty;
  CallgrindProfile calls;
};

struct SummaryOptions {
  int64_t calls = 0;  // calls in each loop (> 0)
  int64_t warmup_calls = 0;
  int top_inclusive = 12;  // rows of InstructionCounts.top_inclusive
  // Function rows whose self count is at least this share of the call's instructions keep
  // their own row; at most max_functions rows, the rest summed as "[other functions]".
  double function_share = 0.0005;
  int max_functions = 80;
};

// Fills the figures of `counts` (instructions, repeat_instructions, spread,
// empty_call_instructions, cache figures, top_inclusive, functions, functions_threshold,
// calls, repeats, warmup_calls) and sets complete. No repeats, or a loop that counted no
// instructions (collection never switched on: not under callgrind's client requests), leaves
// complete false with the reason in diagnostics.
void SummarizeRepeats(const std::vector<CountedRepeat>& repeats, const SummaryOptions& options,
                      v1::InstructionCounts* counts);

}  // namespace torchscan::passes
