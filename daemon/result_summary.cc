#include "daemon/result_summary.h"

#include "report/machine_key.h"

namespace torchscan::daemon {
namespace {

v1::ResultSummary SummaryOfRun(const char* run, const v1::BenchmarkReport& report) {
  v1::ResultSummary summary;
  summary.set_run(run);
  *summary.mutable_latency() = report.timing().summary();
  summary.set_model(report.model());
  summary.set_device(report.settings().device());
  summary.set_machine(report::MachineKey(report.environment()));
  return summary;
}

}  // namespace

std::optional<v1::ResultSummary> SummaryOfResult(const v1::JobResult& result) {
  if (result.has_report()) return SummaryOfRun("measured", result.report());
  if (result.has_comparison()) {
    v1::ResultSummary summary = SummaryOfRun("candidate", result.comparison().after());
    *summary.mutable_baseline_latency() = result.comparison().before().timing().summary();
    return summary;
  }
  return std::nullopt;
}

}  // namespace torchscan::daemon
