#include "worker/worker_job.h"

#include <chrono>
#include <exception>

#include "absl/strings/str_cat.h"
#include "core/phase_timeline.h"
#include "experiment/experiment.h"
#include "io/proto_json.h"
#include "proto/service.pb.h"
#include "worker/calibration_job.h"
#include "worker/job_options.h"
#include "worker/job_spec_file.h"
#include "worker/result_labels.h"
#include "worker/state_folder.h"
#include "worker/worker_protocol.h"

namespace torchscan::worker {
namespace {

using Clock = std::chrono::steady_clock;

int Fail(std::ostream& errors, int code, const absl::Status& status) {
  errors << "torchscan-worker: " << status.message() << std::endl;
  return code;
}

int CodeOf(const absl::Status& status) {
  return status.code() == absl::StatusCode::kResourceExhausted ? kWorkerOutOfMemory : kWorkerWorkloadError;
}

// Progress lines; "blocks" at most every 100 ms so that printing stays out of the way.
class Progress {
 public:
  explicit Progress(std::ostream& out) : out_(out) {}
  void Phase(const std::string& phase) {
    out_ << FormatPhaseLine(phase) << std::endl;
    last_blocks_ = Clock::time_point();
  }
  void Blocks(int64_t done) {
    const Clock::time_point now = Clock::now();
    if (now - last_blocks_ < std::chrono::milliseconds(100)) return;
    last_blocks_ = now;
    out_ << FormatBlocksLine(done) << std::endl;
  }
  void Done() { out_ << kDoneLine << std::endl; }

 private:
  std::ostream& out_;
  Clock::time_point last_blocks_;
};

int Run(const WorkerFlags& flags, std::ostream& progress_out, std::ostream& errors) {
  PhaseTimeline timeline;  // time 0: the worker begins the job
  if (flags.job_dir.empty()) return Fail(errors, kWorkerBadSpec, absl::InvalidArgumentError("--job: required"));
  v1::JobSpec spec;
  if (absl::Status s = LoadJobSpec(flags.job_dir, &spec); !s.ok()) return Fail(errors, kWorkerBadSpec, s);
  absl::StatusOr<experiment::ExperimentOptions> options = ExperimentOptionsFor(spec, flags.rss_child_path);
  if (!options.ok()) return Fail(errors, kWorkerBadSpec, options.status());
  Progress progress(progress_out);
  options->on_phase = [&](const std::string& phase) { progress.Phase(phase); };
  options->on_block = [&](int64_t done) { progress.Blocks(done); };
  options->timeline = &timeline;
  if (flags.waiting_rss != nullptr && !options->rss) {
    flags.waiting_rss->clear();  // killed now: none may load LibTorch beside this job's timing
  }
  options->waiting_rss = flags.waiting_rss;

  v1::JobResult result;
  if (spec.has_measure()) {
    absl::StatusOr<v1::BenchmarkReport> report =
        experiment::RunMeasurement(spec.measure().workload(), "measurement", *options);
    if (!report.ok()) return Fail(errors, CodeOf(report.status()), report.status());
    *result.mutable_report() = *std::move(report);
  } else if (spec.has_compare()) {
    absl::StatusOr<v1::Comparison> comparison =
        experiment::RunComparison(spec.compare().baseline(), spec.compare().candidate(), *options);
    if (!comparison.ok()) return Fail(errors, CodeOf(comparison.status()), comparison.status());
    *result.mutable_comparison() = *std::move(comparison);
  } else if (spec.has_calibrate()) {
    if (flags.self_path.empty())
      return Fail(errors, kWorkerBadSpec,
                  absl::InvalidArgumentError("calibrate: needs the worker's own executable to run each pair in a "
                                             "fresh process (WorkerFlags.self_path)"));
    CalibrationRun run;
    run.worker_path = flags.self_path;
    run.job_dir = flags.job_dir;
    run.on_phase = options->on_phase;
    run.on_blocks = options->on_block;
    absl::StatusOr<v1::Calibration> calibration = RunCalibration(spec, run);
    if (!calibration.ok()) return Fail(errors, CodeOf(calibration.status()), calibration.status());
    *result.mutable_calibration() = *std::move(calibration);
  } else {
    return Fail(errors, kWorkerBadSpec,
                absl::InvalidArgumentError("spec: set exactly one of measure, compare or calibrate"));
  }
  LabelResult(spec, &result);
  progress.Phase("write result");
  if (absl::Status s = SaveJson(result, flags.job_dir + "/" + kJobResultFile); !s.ok())
    return Fail(errors, kWorkerResultNotWritten, s);
  progress.Done();
  return kWorkerOk;
}

}  // namespace

int RunWorkerJob(const WorkerFlags& flags, std::ostream& progress, std::ostream& errors) {
  try {
    return Run(flags, progress, errors);
  } catch (const std::exception& e) {
    errors << "torchscan-worker: unexpected error: " << e.what() << std::endl;
  } catch (...) {
    errors << "torchscan-worker: unexpected error of an unknown type" << std::endl;
  }
  return kWorkerInternalError;
}

}  // namespace torchscan::worker
