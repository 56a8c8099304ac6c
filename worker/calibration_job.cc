#include "worker/calibration_job.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/decision_forecast.h"
#include "core/noise_floor.h"
#include "core/timestamp.h"
#include "proto/spec_limits.h"
#include "report/report_json.h"
#include "spec/workload_key.h"
#include "worker/fresh_comparison.h"
#include "worker/result_labels.h"

namespace torchscan::worker {

v1::WorkloadSpec CalibrationWorkload(const v1::CalibrateJob& job) {
  if (job.has_workload()) return job.workload();
  v1::WorkloadSpec reference;
  reference.mutable_model()->set_builtin(v1::ModelSpec::linear);
  reference.set_execution_mode(v1::WorkloadSpec::batch);
  return reference;
}

int CalibrationPairs(const v1::CalibrateJob& job) { return job.pairs() > 0 ? job.pairs() : kDefaultCalibrationPairs; }

v1::JobSpec CalibrationPairSpec(const v1::JobSpec& calibrate_spec) {
  const v1::WorkloadSpec workload = CalibrationWorkload(calibrate_spec.calibrate());
  v1::JobSpec pair;
  pair.set_label(calibrate_spec.label());
  *pair.mutable_options() = calibrate_spec.options();
  pair.mutable_options()->set_skip_diagnostics(true);
  pair.mutable_options()->set_rss(false);
  v1::CompareJob* compare = pair.mutable_compare();
  *compare->mutable_baseline() = workload;
  *compare->mutable_candidate() = workload;
  compare->mutable_check()->set_skip(true);
  compare->set_rounds(calibrate_spec.calibrate().rounds());
  compare->set_fixed_length(true);  // the floor is of the planned rounds' evidence
  return pair;
}

absl::StatusOr<v1::Calibration> RunCalibration(const v1::JobSpec& spec, const CalibrationRun& run) {
  const v1::WorkloadSpec workload = CalibrationWorkload(spec.calibrate());
  const v1::JobSpec pair_spec = CalibrationPairSpec(spec);
  const int pairs = CalibrationPairs(spec.calibrate());
  std::vector<v1::Comparison> comparisons;
  v1::Calibration calibration;
  calibration.set_schema_version(report::kReportSchemaVersion);
  for (int i = 1; i <= pairs; ++i) {
    const std::string prefix = absl::StrCat("pair ", i, "/", pairs, ": ");
    auto phase = [&](const std::string& name) {
      if (run.on_phase) run.on_phase(prefix + name);
    };
    FreshWorkerRun fresh;
    fresh.worker_path = run.worker_path;
    fresh.dir = absl::StrCat(run.job_dir, "/pair-", i);
    fresh.on_start = [&](int pid) {
      if (run.on_pair_start) run.on_pair_start(i, pid);
      phase("LibTorch load");
    };
    fresh.on_phase = phase;
    fresh.on_blocks = run.on_blocks;
    phase("worker start");
    absl::StatusOr<v1::Comparison> c = RunComparisonInFreshWorker(pair_spec, fresh);
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
  // What a compare at its defaults is expected to do here, from the same pairs.
  if (std::optional<v1::DecisionForecast> f = ForecastFromPairs(comparisons))
    *calibration.mutable_noise_floor()->mutable_forecast() = *std::move(f);
  calibration.mutable_noise_floor()->set_workload_key(spec::WorkloadKey(workload));
  calibration.mutable_noise_floor()->set_measured_at(NowRfc3339());
  return calibration;
}

}  // namespace torchscan::worker
