// Pooling the timing of a run measured in several rounds (alternating order, so order
// effects show). No LibTorch.
#pragma once

#include <string>

#include "proto/report.pb.h"

namespace torchscan {

// Adds `round` (a report from one timing pass of the same workload) to `pooled`. The first
// call copies it; later calls append its blocks in measurement order, add its timed total
// and warm-up calls and its warnings (each code once), pool its load (core/cpu_load.h
// PoolTimingLoad), and recompute the summary and the throughput from all blocks. Either way a TimingRound entry records the round's index
// (1-based), `position` ("first" or "second") and its own median.
void AddTimingRound(const v1::BenchmarkReport& round, int index, const std::string& position,
                    v1::BenchmarkReport* pooled);

// "baseline, candidate, candidate, baseline" for 2 rounds starting with the baseline.
std::string AlternatingOrder(int rounds, bool candidate_first);

}  // namespace torchscan
