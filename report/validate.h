// Required parts of loaded reports and comparisons, beyond what the JSON mapping checks.
// Each error is InvalidArgument "<field path>: <what is wrong and the fix>".
#pragma once

#include <string>

#include "absl/status/status.h"
#include "proto/report.pb.h"

namespace torchscan::report {

// The warning code of a run a comparison did not time: its output check failed before timing
// (experiment/experiment.h), so the run holds settings and environment but no block.
inline constexpr char kNotTimedWarning[] = "not_timed";

// schema_version equal to `schema_version`; settings, environment and timing present;
// at least one timing block, unless the report carries a kNotTimedWarning (then none); every block with calls >= 1 and
// a finite duration >= 0; summary.block_count equal to the number of blocks; timing.load, when present, with a finite
// other_cpu_share from 0 to 1 (0.01 either side is allowed for rounding; the producer clamps),
// finite seconds, interval_s >= 0, cpu_count >= 1 and finite load figures >= 0; work_units > 0
// and a work_unit; the timeline and job_timeline, when present, valid (ValidateTimeline).
// `prefix` is prepended to field paths ("before." inside a comparison).
absl::Status ValidateReport(const v1::BenchmarkReport& report, int schema_version, const std::string& prefix = "");

// schema_version, output_check, compatibility and both reports present and valid (a run
// that was not timed only where the output check failed); the
// paired evidence valid (ValidatePairedEvidence); the comparison's own timeline and
// job_timeline, when present, valid.
absl::Status ValidateComparison(const v1::Comparison& comparison, int schema_version);

// Paired evidence (comparisons without it, older or withheld, are valid: every field empty).
// Each ratio that is set (round_ratios, median_ratio, ci_low, ci_high) finite and > 0;
// ci_low and ci_high both set or neither, ci_low <= ci_high; confidence and
// achieved_confidence probabilities, achieved >= confidence; resolvable_change finite >= 0;
// a faster claim needs ci_high < 1, a slower one ci_low > 1 (the claim follows the interval).
// `field` names it in errors ("evidence.paired").
absl::Status ValidatePairedEvidence(const v1::PairedEvidence& paired, const std::string& field);

// A timeline without spans is valid (evidence from before timelines, a comparison of saved
// reports). With spans: started_at set; each span named, with finite start_s >= 0 and
// end_s >= start_s; listed in the order they began (start_s never below the previous span's);
// each own span (concurrent false) starting at or after the previous own span's end (the
// worker's phases run one at a time); and no concurrent span (an RSS child) overlapping a
// timing phase (an own span named "warm-up ..." or "timing ..."): nothing runs beside timing.
// Spans that only touch do not overlap. `field` names the timeline in errors ("timeline",
// "before.timeline").
absl::Status ValidateTimeline(const v1::Timeline& timeline, const std::string& field);

}  // namespace torchscan::report
