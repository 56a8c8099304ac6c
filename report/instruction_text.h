// Instruction counts (BenchmarkReport.instructions) and their diff (Comparison.instructions)
// in words every renderer shares, so the terminal, Markdown and HTML say the same thing.
// Only reads what was saved. Pure.
#pragma once

#include <string>
#include <vector>

#include "proto/report.pb.h"

namespace torchscan::report {

// "1.234 M instructions per call (repeats agree within 0.00%); est. 1.520 M cycles, 310.0 L1 and
// 2.0 LL misses per call; 10 calls × 2 repeats, callgrind-3.19.0, cache simulation on, 12.3 s",
// or "no count: <reason>".
std::string DescribeInstructionCounts(const v1::InstructionCounts& counts);

// The headline of a diff: "+2.00% instructions per call (+24.6 k: 1.234 M → 1.259 M)", with the
// cycle estimate's change and the repeat spread when it is above zero; "withheld: ..." or
// "unknown: ..." when no number may be shown.
std::string DescribeInstructionDiff(const v1::InstructionDiff& diff);

// One function row of a diff: "+24.10 k  Sleef_tanhf8_u10avx2 (120.0 k → 144.1 k)".
std::string FunctionDeltaText(const v1::FunctionDelta& row);

// The increases then the decreases of a known diff, at most `rows` of each; empty otherwise.
std::vector<const v1::FunctionDelta*> DiffRows(const v1::InstructionDiff& diff, int rows);

}  // namespace torchscan::report
