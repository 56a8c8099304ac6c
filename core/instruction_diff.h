// Two runs' instruction counts (BenchmarkReport.instructions, passes/instruction_count.h)
// compared: the per-call delta, absolute and relative, and the function-level diff of self
// counts (the rows each side kept, groups included) with the largest increases and decreases.
// Beside the guide's label and the paired claim; never decides them. Pure.
#pragma once

#include <string>

#include "proto/report.pb.h"

namespace torchscan {

// Rows of each list in InstructionDiff.increases / decreases.
inline constexpr int kInstructionDiffRows = 10;

// An empty diff when neither side counted (CompareReports then leaves the field unset). Known only when both sides have
// complete counts and `withheld_reason` is empty (the comparison's: a failed check or incompatible runs); otherwise
// unknown_reason says why and no number is kept. A function kept by one side only counts as below the other side's
// threshold: its delta is taken against that threshold's half, and the note says diffs of rows near it are approximate.
v1::InstructionDiff DiffInstructions(const v1::BenchmarkReport& before, const v1::BenchmarkReport& after,
                                     const std::string& withheld_reason);

// Whether a comparison holds an instruction diff worth showing (either side counted).
bool HasInstructionDiff(const v1::Comparison& comparison);

}  // namespace torchscan
