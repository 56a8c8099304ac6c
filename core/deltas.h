// Metric deltas between two reports: after - before, only where both sides are complete
// metrics with the same method, scope and unit. Everything else keeps an unknown delta
// with the reason.
#pragma once

#include <string>

#include "proto/report.pb.h"

namespace torchscan {

// The comparable metrics of a report, in a stable order: the timing summary as
// latency_median / latency_iqr / latency_mean (s, per call) and throughput
// (<work_unit>/s), then every appended total, then the profile's FLOPs per call.
// A report without timing blocks yields the timing metrics with no value.
google::protobuf::RepeatedPtrField<v1::MetricResult> ComparableMetrics(const v1::BenchmarkReport& report);

// One delta per metric name found in either report (before's order, then after-only names).
// When `withheld_reason` is non-empty no number is kept at all: every delta is unknown
// with that reason (a failed check or incompatible runs).
google::protobuf::RepeatedPtrField<v1::MetricDelta> ComputeDeltas(const v1::BenchmarkReport& before,
                                                                  const v1::BenchmarkReport& after,
                                                                  const std::string& withheld_reason);

}  // namespace torchscan
