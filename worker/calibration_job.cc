#include "worker/calibration_job.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/noise_floor.h"
#include "core/timestamp.h"
#include "proto/spec_limits.h"
#include "report/report_json.h"
#include "worker/result_labels.h"

namespace torchscan::daemon {

v1::WorkloadSpec CalibrationWorkload(const v1::CalibrateJob& job) {
  if (job.has_workload()) return job.workload();
  v1::WorkloadSpec reference;
  reference.mutable_model()->set_builtin(v1::ModelSpec::linear);
  reference.set_execution_mode(v1::WorkloadSpec::batch);
  return reference;
}

int CalibrationPairs(const v1::CalibrateJob& job) { return job.pairs() > 0 ? job.pairs() : kDefaultCalibrationPairs; }

absl::StatusOr<v1::Calibration> RunCalibration(const v1::CalibrateJob& job, const ExperimentOptions& options) {
  const v1::WorkloadSpec workload = CalibrationWorkload(job);
  const int pairs = CalibrationPairs(job);
  std::vector<v1::Comparison> comparisons;
  v1::Calibration calibration;
  calibration.set_schema_version(kReportSchemaVersion);
  for (int i = 1; i <= pairs; ++i) {
    const std::string prefix = absl::StrCat("pair ", i, "/", pairs, ": ");
    ExperimentOptions pair = options;
    pair.timeline = nullptr;
    pair.on_phase = [&](const std::string& phase) {
      if (options.on_phase) options.on_phase(prefix + phase);
    };
    absl::StatusOr<v1::Comparison> c = RunComparison(workload, workload, pair);
    if (!c.ok()) return absl::Status(c.status().code(), prefix + std::string(c.status().message()));
    v1::CalibrationPair* line = calibration.add_pairs();
    line->set_latency_change(v1::Comparison::LatencyChange_Name(c->latency_change()));
    line->set_claim(v1::PairedEvidence::Claim_Name(c->evidence().paired().claim()));
    const double before = c->before().timing().summary().median_s();
    if (before > 0) line->set_median_ratio(c->after().timing().summary().median_s() / before);
    c->mutable_before()->set_model(ModelName(workload));  // for the noise floor's workload
    comparisons.push_back(*std::move(c));
  }
  *calibration.mutable_noise_floor() = ComputeNoiseFloor(comparisons);
  calibration.mutable_noise_floor()->set_measured_at(NowRfc3339());
  return calibration;
}

}  // namespace torchscan::daemon
