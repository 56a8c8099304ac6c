// A machine's noise floor from A/A comparisons (a calibrate job compares one workload with
// itself `pairs` times), and whether a noise floor still describes a later result. Pure
// functions over v1 messages: no LibTorch, no I/O, no clock (the caller passes "now").
//
// What is computed, from the A/A pairs' comparisons:
//  - false_label_rate: the share of pairs the guide's rule labelled faster or slower. Both
//    sides run the same workload, so every such label is a false verdict.
//  - false_claim_rate: the share whose paired claim (core/paired_ratio.h) was not no_claim.
//  - the spread of the pairs' relative median differences: min, 5th, 50th, 95th percentile
//    (type 7) and max.
//  - resolvable_change, measured empirically: each pair's per-round ratios
//    (evidence.paired.round_ratios) are multiplied by 1 + d and the Hodges-Lehmann claim is
//    recomputed with PairedRatios, the exact code a comparison uses; the smallest d on a grid
//    of 0.1 % steps up to 100 % at which 90 % of the pairs or more claim `slower`. Likewise
//    with 1 / (1 + d) and `faster`; the larger of the two d is reported.
// Why this is honest: the injected change rides on this machine's own round-to-round noise
// (the A/A ratios are what the rounds of a real comparison scatter by here, drift included),
// and the decision is the same claim code with the same confidence, so "resolves d at 90 %
// power" means: of comparisons like these, 90 % would have claimed a real change of d. It
// makes no assumption on the ratios' distribution. It is absent (with a note) when no pair
// has the rounds a claim needs (MinRoundsForConfidence: 5 at 90 %), or when no d on the grid
// reaches 90 % (the note says so).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "proto/report.pb.h"

namespace torchscan {

inline constexpr double kNoiseFloorPower = 0.90;      // share of pairs that must claim the change
inline constexpr double kNoiseFloorGridStep = 0.001;  // 0.1 % steps of d
inline constexpr double kNoiseFloorGridMax = 1.0;     // ... up to 100 %

// The noise floor of `pairs` (each an A/A comparison of one job, in the order run). The
// settings (device, min_run_time_s, rounds, threads), hostname, cpu_model and workload (its
// model name, method, execution_mode and dtype) are taken from the first pair's baseline
// run; measured_at and job_id are left for the caller. Empty `pairs`: pairs 0 and a note,
// nothing else set. A pair whose relative change is unknown (withheld numbers) counts in
// the rates but not in the spread.
v1::NoiseFloor ComputeNoiseFloor(const std::vector<v1::Comparison>& pairs);

// The smallest d (see above) at which `power` of the pairs' scaled round ratios claim
// `slower` (and `faster` when scaled by 1 / (1 + d)), the larger of the two; nullopt when no
// pair has enough rounds or no d up to kNoiseFloorGridMax reaches `power`. `round_ratios`
// holds one list per pair; lists with fewer rounds than a claim needs are skipped, and
// `pairs_used` (may be null) gets how many were not.
std::optional<double> EmpiricalResolvableChange(const std::vector<std::vector<double>>& round_ratios,
                                                double power = kNoiseFloorPower, int* pairs_used = nullptr);

// The settings a result was measured at, as a noise floor records them. `rounds` is absent
// for a single measurement (rounds apply to comparisons only).
struct NoiseFloorSettings {
  std::string device;
  double min_run_time_s = 0;
  std::optional<int> rounds;
  int intra_op_threads = 0;
  int inter_op_threads = 0;
};

// A report's settings (rounds absent); a comparison's from its baseline run, with the rounds
// its job asked for (round_plan.requested_rounds; where that is not recorded, the rounds timed,
// 0 read as 1: a single pass).
NoiseFloorSettings SettingsOfReport(const v1::BenchmarkReport& report);
NoiseFloorSettings SettingsOfComparison(const v1::Comparison& comparison);

// `floor` as attached to a result measured at `settings` at time `now` (RFC 3339): age_s,
// and stale with stale_reason when it is older than `max_age_s` ("older than 7 days (8.0
// days)") or was measured at other settings ("measured at other settings: min_run_time_s
// 0.2 (this run 0.05), rounds ..."); several reasons are joined with "; ". A measured_at or
// `now` that cannot be read makes it stale ("its age is unknown"). age_s is never negative
// (a clock stepped back counts as age 0).
v1::NoiseFloor AttachNoiseFloor(const v1::NoiseFloor& floor, const NoiseFloorSettings& settings, const std::string& now,
                                double max_age_s);

// Only its age and the age limit (for `info`, which has no result's settings).
v1::NoiseFloor AgedNoiseFloor(const v1::NoiseFloor& floor, const std::string& now, double max_age_s);

}  // namespace torchscan
