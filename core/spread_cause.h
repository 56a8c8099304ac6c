// The "high_iqr" warning of a timed run, with the likely cause of the spread read from the
// run's own evidence (issue 25: a busy machine was blamed beside "others used 0% of CPUs").
// Pure functions over the saved Timing: no LibTorch, no clock.
//
// Causes, the first that applies:
//  1. few blocks (fewer than kFewBlocksForQuartiles): quartiles of so few per-block times are
//     coarse, a slow model's usual case;
//  2. load seen: others used at least kLoadCauseShare of the job's CPUs during timing
//     (Timing.load);
//  3. drift between rounds: with kDriftRounds rounds or more, the round medians spread (IQR
//     over their median) by at least half the run's whole IQR fraction: the speed changed
//     while the run was timed (frequency, other work that came and went);
//  4. otherwise the spread is within the process: blocks vary inside rounds with no other
//     work seen (allocation, caches, thread scheduling of the workload itself).
#pragma once

#include <string>

#include "google/protobuf/repeated_ptr_field.h"
#include "proto/report.pb.h"

namespace torchscan {

inline constexpr double kHighIqrFraction = 0.10;  // IQR above this share of the median warns
inline constexpr int kFewBlocksForQuartiles = 20;
inline constexpr double kLoadCauseShare = 0.10;
inline constexpr int kDriftRounds = 4;

// The high_iqr message for `timing` ("IQR is 13.9% of the median (above 10%); likely cause:
// ..."), or "" when its IQR is not above kHighIqrFraction of its median.
std::string HighIqrMessage(const v1::Timing& timing);

// Makes `warnings` hold exactly one high_iqr warning with HighIqrMessage(timing) when it is
// not "", and none otherwise; other warnings keep their order. Called when the run's timing is
// first summarised and again once its load and rounds are attached.
void SetHighIqrWarning(const v1::Timing& timing, google::protobuf::RepeatedPtrField<v1::Warning>* warnings);

}  // namespace torchscan
