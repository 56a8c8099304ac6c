#include "core/deltas.h"

#include <vector>

#include "absl/strings/str_format.h"

namespace torchscan {
namespace {

constexpr const char* kTimingMethod = "blocked timing: per-call time of each block (duration / calls)";
constexpr const char* kTimingScope = "one call on resident inputs; excludes construction, transfers and checks";

v1::MetricResult TimingMetric(const v1::BenchmarkReport& r, const std::string& name, double value,
                              const std::string& unit, const std::string& method) {
  v1::MetricResult m;
  m.set_name(name);
  m.set_unit(unit);
  m.set_method(method);
  m.set_scope(kTimingScope);
  if (r.timing().blocks_size() == 0) {
    m.set_complete(false);
    m.add_diagnostics("the report has no timing blocks");
  } else {
    m.set_value(value);
    m.set_complete(true);
  }
  return m;
}

const v1::MetricResult* Find(const google::protobuf::RepeatedPtrField<v1::MetricResult>& metrics,
                             const std::string& name) {
  for (const v1::MetricResult& m : metrics)
    if (m.name() == name) return &m;
  return nullptr;
}

// Empty when a delta can be computed, else why not.
std::string UnknownReason(const v1::MetricResult* before, const v1::MetricResult* after) {
  if (!before) return "missing in the before report";
  if (!after) return "missing in the after report";
  if (!before->has_value()) return "unknown in the before report";
  if (!after->has_value()) return "unknown in the after report";
  if (!before->complete()) return "incomplete in the before report (a lower bound)";
  if (!after->complete()) return "incomplete in the after report (a lower bound)";
  if (before->method() != after->method())
    return absl::StrFormat("methods differ: \"%s\" vs \"%s\"", before->method(), after->method());
  if (before->scope() != after->scope())
    return absl::StrFormat("scopes differ: \"%s\" vs \"%s\"", before->scope(), after->scope());
  if (before->unit() != after->unit())
    return absl::StrFormat("units differ: \"%s\" vs \"%s\"", before->unit(), after->unit());
  return "";
}

v1::MetricDelta Delta(const v1::MetricResult* before, const v1::MetricResult* after,
                      const std::string& withheld_reason) {
  const v1::MetricResult& any = before ? *before : *after;
  v1::MetricDelta d;
  d.set_name(any.name());
  d.set_unit(any.unit());
  d.set_method(any.method());
  d.set_scope(any.scope());
  std::string reason = withheld_reason.empty() ? UnknownReason(before, after) : withheld_reason;
  if (!reason.empty()) {
    d.set_known(false);
    d.set_unknown_reason(reason);
    if (withheld_reason.empty()) {
      if (before && before->has_value()) d.set_before(before->value());
      if (after && after->has_value()) d.set_after(after->value());
    }
    return d;
  }
  d.set_known(true);
  d.set_before(before->value());
  d.set_after(after->value());
  d.set_delta(after->value() - before->value());
  if (before->value() != 0) d.set_ratio(after->value() / before->value());
  return d;
}

}  // namespace

google::protobuf::RepeatedPtrField<v1::MetricResult> ComparableMetrics(const v1::BenchmarkReport& r) {
  google::protobuf::RepeatedPtrField<v1::MetricResult> out;
  const v1::TimingSummary& s = r.timing().summary();
  *out.Add() = TimingMetric(r, "latency_median", s.median_s(), "s", std::string(kTimingMethod) + ", median");
  *out.Add() = TimingMetric(r, "latency_iqr", s.iqr_s(), "s", std::string(kTimingMethod) + ", q3 - q1");
  *out.Add() = TimingMetric(r, "latency_mean", s.mean_s(), "s", std::string(kTimingMethod) + ", mean");
  *out.Add() =
      TimingMetric(r, "throughput", r.timing().throughput(), r.work_unit() + "/s", "work_units / latency_median");
  for (const v1::MetricResult& m : r.totals()) *out.Add() = m;
  if (r.has_profile() && r.profile().has_flops_per_call()) *out.Add() = r.profile().flops_per_call();
  return out;
}

google::protobuf::RepeatedPtrField<v1::MetricDelta> ComputeDeltas(const v1::BenchmarkReport& before,
                                                                  const v1::BenchmarkReport& after,
                                                                  const std::string& withheld_reason) {
  const auto before_metrics = ComparableMetrics(before);
  const auto after_metrics = ComparableMetrics(after);
  google::protobuf::RepeatedPtrField<v1::MetricDelta> deltas;
  for (const v1::MetricResult& m : before_metrics)
    *deltas.Add() = Delta(&m, Find(after_metrics, m.name()), withheld_reason);
  for (const v1::MetricResult& m : after_metrics)
    if (!Find(before_metrics, m.name())) *deltas.Add() = Delta(nullptr, &m, withheld_reason);
  return deltas;
}

}  // namespace torchscan
