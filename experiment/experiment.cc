#include "experiment/experiment.h"

#include <torch/torch.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/compare.h"
#include "core/cpu_load.h"
#include "core/output_check.h"
#include "core/proc_load.h"
#include "experiment/compiled_flops.h"
#include "experiment/concurrent_rss.h"
#include "experiment/instruction_pass.h"
#include "experiment/script_check.h"
#include "experiment/timed_runs.h"
#include "experiment/torch_measure.h"
#include "passes/operator_profile.h"
#include "passes/peak_memory.h"
#include "passes/peak_rss.h"
#include "spec/field_rules.h"
#include "workloads/thread_settings.h"
#include "workloads/torch_status.h"
#include "workloads/workload.h"

namespace torchscan::experiment {
namespace {

using workloads::Workload;

absl::Status Prefixed(const std::string& prefix, const absl::Status& s) {
  return absl::Status(s.code(), prefix + std::string(s.message()));
}

absl::Status ValidateOptions(const ExperimentOptions& o) {
  if (absl::Status s = ValidateLatencyOptions(o.timing); !s.ok()) return s;
  if (o.profile_calls < 1) return absl::InvalidArgumentError("profile_calls: must be at least 1");
  if (o.rounds < 1 || o.rounds > kMaxRounds)
    return absl::InvalidArgumentError(absl::StrCat("rounds: must be 1..", kMaxRounds, " timing rounds"));
  if ((o.rss || o.instructions) && o.rss_child_path.empty())
    return absl::InvalidArgumentError(
        "rss_child_path: required with rss or instructions (the torchscan_rss_child binary)");
  if (o.instructions && (o.instruction_calls < 1 || o.instruction_calls > kMaxInstructionCalls))
    return absl::InvalidArgumentError(absl::StrCat("instruction_calls: must be 1..", kMaxInstructionCalls));
  if (o.rss && o.rss_calls < 1) return absl::InvalidArgumentError("rss_calls: must be at least 1");
  return absl::OkStatus();
}

// Comparisons only: the declarative check needs the caller's tolerance.
absl::Status ValidateCheck(const ExperimentOptions& o) {
  if (o.skip_check || o.check_module.source_case() != v1::TorchScriptSpec::SOURCE_NOT_SET) return absl::OkStatus();
  if (!spec::IsTolerance(o.check.rtol) || !spec::IsTolerance(o.check.atol))
    return absl::InvalidArgumentError(absl::StrCat("check: rtol and atol must be given as numbers >= 0 (",
                                                   spec::kNoToleranceChosen,
                                                   "); or use a check module, or skip_check"));
  if (!o.check.compare_dtype.empty() && !IsCompareDType(o.check.compare_dtype))
    return absl::InvalidArgumentError("check.compare_dtype: \"" + o.check.compare_dtype +
                                      "\" is not one of float32, float64, bfloat16, float16");
  return absl::OkStatus();
}

absl::StatusOr<Workload> Build(const v1::WorkloadSpec& spec, const std::string& name, const ExperimentOptions& o,
                               PhaseTimeline& timeline) {
  const Phase phase(o, timeline, "build " + name);
  absl::StatusOr<Workload> w = workloads::BuildWorkload(spec);
  if (!w.ok()) return Prefixed(name + ": ", w.status());
  return w;
}

// A "busy_machine" warning on `report` when other work used more than the limit of its CPUs
// while it was timed (all rounds together).
void WarnIfBusy(const std::string& whose, v1::BenchmarkReport* report) {
  if (std::optional<v1::Warning> w = BusyMachineWarning(report->timing().load(), whose))
    *report->add_warnings() = *std::move(w);
}

// A "training_mode" warning on `report` when its module was saved in training mode: it was
// measured in eval mode, as inference runs it, which is not what the module was given as.
void WarnIfTrainingMode(const Workload& w, v1::BenchmarkReport* report) {
  const auto mode = w.description.find(workloads::kGivenModeKey);
  if (mode == w.description.end() || mode->second != "training") return;
  v1::Warning* warning = report->add_warnings();
  warning->set_code("training_mode");
  warning->set_message(
      "the module was given in training mode (model.training is True: dropout active, batch norm updating its "
      "statistics); TorchScan measured it in eval mode and inference mode, as inference runs it; call "
      "model.eval() before saving or passing it to measure what you run");
}

absl::Status AddDiagnostics(const Workload& w, const ExperimentOptions& o, PhaseTimeline& timeline,
                            v1::BenchmarkReport* report) {
  if (o.skip_diagnostics) return absl::OkStatus();
  {
    const Phase phase(o, timeline, "profile " + report->name());
    absl::StatusOr<v1::OperatorProfile> profile =
        passes::ProfileWorkload(w.call, o.profile_calls, w.graph_compute ? &*w.graph_compute : nullptr);
    if (!profile.ok()) return Prefixed(report->name() + ": profile: ", profile.status());
    *report->mutable_profile() = *std::move(profile);
    MarkOpaqueFlops(w.opaque_compute.why, w.opaque_compute.without_markers, report->mutable_profile());
    *report->add_totals() = AchievedFlops(*report);
  }
  const Phase phase(o, timeline, "memory " + report->name());
  for (v1::MetricResult& m : passes::MeasurePeakMemory(w.call, *w.device, w.resident_tensors))
    *report->add_totals() = std::move(m);
  return absl::OkStatus();
}

// With rss, the job's RSS children (one per run, concurrent spans "rss <name>"), started at
// once as soon as the options are valid, so that they run beside the worker's own start-up and
// builds (experiment/concurrent_rss.h says why that leaves each figure unchanged). nullptr without rss.
std::unique_ptr<ConcurrentRss> StartRss(std::vector<ConcurrentRss::Trial> trials, const ExperimentOptions& o,
                                        PhaseTimeline& timeline) {
  if (!o.rss) return nullptr;
  passes::RssTrialOptions trial;
  trial.calls = o.rss_calls;
  trial.timeout_s = o.rss_timeout_s;
  trial.intra_op_threads = o.intra_op_threads;
  trial.inter_op_threads = o.inter_op_threads;
  std::vector<passes::RssTrial> waiting;
  if (o.waiting_rss != nullptr) waiting = std::exchange(*o.waiting_rss, {});
  return std::make_unique<ConcurrentRss>(std::move(trials), o.rss_child_path, trial, timeline, o.on_phase,
                                         std::move(waiting));
}

// Waits until every RSS child has exited, in a phase "wait for rss" (the time the worker
// waited, if any), before the first timed block: nothing runs beside timing. Returns each
// run's peak_rss_bytes in the order they were started; none without rss.
std::vector<v1::MetricResult> JoinRss(ConcurrentRss* rss, const ExperimentOptions& o, PhaseTimeline& timeline) {
  if (rss == nullptr) return {};
  const Phase phase(o, timeline, "wait for rss");
  return rss->Join();
}

// With instructions, every run's instruction counts (experiment/instruction_pass.h).
void CountInstructions(const std::vector<InstructionRun>& runs, const ExperimentOptions& o, PhaseTimeline& timeline) {
  if (!o.instructions) return;
  passes::InstructionOptions count;
  count.calls = o.instruction_calls;
  count.intra_op_threads = o.intra_op_threads;
  count.inter_op_threads = o.inter_op_threads;
  AddInstructionCounts(runs, o.rss_child_path, count, timeline, o.on_phase);
}

// The comparison's TorchScript check module, loaded before the builds; nullptr when the
// check is skipped or declarative.
absl::StatusOr<std::unique_ptr<ScriptCheck>> LoadScriptCheck(const ExperimentOptions& o) {
  if (o.skip_check || o.check_module.source_case() == v1::TorchScriptSpec::SOURCE_NOT_SET)
    return std::unique_ptr<ScriptCheck>();
  return ScriptCheck::Load(o.check_module, "spec.compare.check.torchscript");
}

// The output check (a phase "check", outside timing): the check module's verdict, or the
// declarative tolerance check; a message saying it was skipped with skip_check.
absl::StatusOr<v1::OutputCheck> CheckOutputs(const Workload& baseline, const Workload& candidate,
                                             const ScriptCheck* script_check, const ExperimentOptions& o,
                                             PhaseTimeline& timeline, const std::string& phase_name = "check") {
  v1::OutputCheck check;
  if (o.skip_check) {
    check.set_message("output check skipped (check.skip)");
    return check;
  }
  absl::Status checked;
  {
    const Phase phase(o, timeline, phase_name);
    checked = workloads::RunTorch("output check", [&] {
      check = RunOutputCheck([&]() -> std::optional<bool> {
        if (script_check) return (*script_check)(baseline.call(), candidate.call());
        experiment::CloseOptions sides = o.check;
        sides.actual_name = "baseline";
        sides.expected_name = "candidate";
        AssertClose(baseline.call(), candidate.call(), sides);
        return std::nullopt;
      });
    });
  }
  if (!checked.ok()) return checked;
  if (script_check) check.set_module(script_check->file());
  if (check.status() == v1::OutputCheck::passed)
    check.set_message(script_check ? "the TorchScript check module passed"
                                   : "baseline and candidate outputs are close at " + DescribeCloseOptions(o.check));
  else if (script_check && check.message() == "check returned false")
    check.set_message("the TorchScript check module returned False");
  return check;
}

}  // namespace

absl::StatusOr<v1::BenchmarkReport> RunMeasurement(const v1::WorkloadSpec& spec, const std::string& name,
                                                   const ExperimentOptions& o) {
  PhaseTimeline own;
  PhaseTimeline& timeline = o.timeline != nullptr ? *o.timeline : own;
  if (absl::Status s = ValidateOptions(o); !s.ok()) return s;
  const std::unique_ptr<ConcurrentRss> rss = StartRss({{name, spec}}, o, timeline);
  if (absl::Status s = workloads::ApplyThreadSettings(o.intra_op_threads, o.inter_op_threads); !s.ok()) return s;
  absl::StatusOr<Workload> w = Build(spec, name, o, timeline);
  if (!w.ok()) return w.status();
  const std::vector<v1::MetricResult> rss_metrics = JoinRss(rss.get(), o, timeline);
  absl::StatusOr<v1::BenchmarkReport> report = Time(*w, name, o, timeline);
  if (!report.ok()) return report.status();
  WarnIfBusy("this job's", &*report);
  WarnIfTrainingMode(*w, &*report);
  if (absl::Status s = AddDiagnostics(*w, o, timeline, &*report); !s.ok()) return s;
  for (const v1::MetricResult& m : rss_metrics) *report->add_totals() = m;
  CountInstructions({{&spec, &*report}}, o, timeline);
  *report->mutable_timeline() = timeline.Snapshot();
  return report;
}

absl::StatusOr<v1::Comparison> RunComparison(const v1::WorkloadSpec& baseline_spec,
                                             const v1::WorkloadSpec& candidate_spec, const ExperimentOptions& o) {
  PhaseTimeline own;
  PhaseTimeline& timeline = o.timeline != nullptr ? *o.timeline : own;
  if (absl::Status s = ValidateOptions(o); !s.ok()) return s;
  if (absl::Status s = ValidateCheck(o); !s.ok()) return s;
  const std::unique_ptr<ConcurrentRss> rss =
      StartRss({{"baseline", baseline_spec}, {"candidate", candidate_spec}}, o, timeline);
  if (absl::Status s = workloads::ApplyThreadSettings(o.intra_op_threads, o.inter_op_threads); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<ScriptCheck>> script_check = LoadScriptCheck(o);
  if (!script_check.ok()) return script_check.status();
  absl::StatusOr<Workload> baseline = Build(baseline_spec, "baseline", o, timeline);
  if (!baseline.ok()) return baseline.status();
  absl::StatusOr<Workload> candidate = Build(candidate_spec, "candidate", o, timeline);
  if (!candidate.ok()) return candidate.status();
  // Fail fast: the same check once before timing, so that a wrong candidate ends in seconds
  // (the RSS children still running are killed with `rss`); again after timing, below.
  if (!o.skip_check) {
    absl::StatusOr<v1::OutputCheck> early =
        CheckOutputs(*baseline, *candidate, script_check->get(), o, timeline, "check (before timing)");
    if (!early.ok()) return early.status();
    if (early->status() == v1::OutputCheck::failed) {
      absl::StatusOr<TimedPair> untimed = NotTimed(*baseline, *candidate, o, "the output check failed before timing");
      if (!untimed.ok()) return untimed.status();
      WarnIfTrainingMode(*baseline, &untimed->before);
      WarnIfTrainingMode(*candidate, &untimed->after);
      v1::Comparison comparison = CompareReports(untimed->before, untimed->after, *early);
      *comparison.mutable_timeline() = timeline.Snapshot();
      return comparison;
    }
  }
  const std::vector<v1::MetricResult> rss_metrics = JoinRss(rss.get(), o, timeline);

  // All timing first, in the planned order (core/round_plan.h), before any diagnostic pass.
  const Rebuild rebuild = [&](bool is_candidate) -> absl::StatusOr<Workload> {
    workloads::WorkloadOptions again;
    again.check_inputs = false;  // the first builds checked them
    return workloads::BuildWorkload(is_candidate ? candidate_spec : baseline_spec, again);
  };
  absl::StatusOr<TimedPair> timed = TimeBoth(*baseline, *candidate, rebuild, o, timeline);
  if (!timed.ok()) return timed.status();
  v1::BenchmarkReport& before = timed->before;
  v1::BenchmarkReport& after = timed->after;
  WarnIfBusy("the baseline's", &before);
  WarnIfBusy("the candidate's", &after);
  WarnIfTrainingMode(*baseline, &before);
  WarnIfTrainingMode(*candidate, &after);

  if (absl::Status s = AddDiagnostics(*baseline, o, timeline, &before); !s.ok()) return s;
  if (absl::Status s = AddDiagnostics(*candidate, o, timeline, &after); !s.ok()) return s;
  if (rss_metrics.size() == 2) {
    *before.add_totals() = rss_metrics[0];
    *after.add_totals() = rss_metrics[1];
  }
  CountInstructions({{&baseline_spec, &before}, {&candidate_spec, &after}}, o, timeline);

  absl::StatusOr<v1::OutputCheck> check = CheckOutputs(*baseline, *candidate, script_check->get(), o, timeline);
  if (!check.ok()) return check.status();
  if (!o.skip_diagnostics)
    CarryFlops(*check, !baseline->opaque_compute.why.empty(), !candidate->opaque_compute.why.empty(), &before, &after);
  v1::Comparison comparison = CompareReports(before, after, *check);
  *comparison.mutable_timeline() = timeline.Snapshot();
  *comparison.mutable_round_plan() = timed->round_plan;
  comparison.mutable_evidence()->mutable_paired()->set_stop_reason(timed->stop_reason);
  return comparison;
}

}  // namespace torchscan::experiment
