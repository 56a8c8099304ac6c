// compare_benchmarks: the guide's "Compare two runs" rules over two reports.
//
//  - The output check runs outside timing (after both measurements) and is recorded.
//  - A failed check keeps both reports but withholds every numeric delta, the evidence
//    and the label (latency_change = unavailable).
//  - Incompatible runs (core/compatibility.h) name each mismatch and withhold the same.
//  - Changed settings (threads, timing settings...) do not block; they are listed.
//  - Deltas: core/deltas.h.
//  - latency_change: with d = after.median - before.median and spread = the larger IQR of
//    the two runs, |d| <= spread is within_variability, else d < 0 faster, d > 0 slower;
//    unavailable when withheld or when either run has no timing blocks.
//    latency_change_reason states the rule in units a person reads (core/number_format.h):
//    "median change -274.9 µs vs larger IQR 399.0 µs: larger than the spread".
//  - Beyond the guide, not used for the label: relative change of the medians and a
//    Mann-Whitney U p-value over per-block times (core/statistics.h guards small samples),
//    and paired evidence over alternating rounds (core/paired_ratio.h: per-round ratios, a
//    Hodges-Lehmann interval at 90 %, a faster/slower/no_claim claim), withheld like the p-value
//    (only its note, the withheld reason, is set).
#pragma once

#include "core/output_check.h"
#include "core/timestamp.h"
#include "proto/report.pb.h"

namespace torchscan {

inline constexpr int kSchemaVersion = 1;

// Compares with an already-recorded check outcome (e.g. a loaded comparison's, or
// not_provided for two saved reports).
v1::Comparison CompareReports(const v1::BenchmarkReport& before, const v1::BenchmarkReport& after,
                              const v1::OutputCheck& check);

// Runs `check` (see RunOutputCheck; exceptions other than AssertionError propagate) and
// compares. An empty `check` records not_provided.
v1::Comparison CompareBenchmarks(const v1::BenchmarkReport& before, const v1::BenchmarkReport& after,
                                 const CheckFn& check = {});

}  // namespace torchscan
