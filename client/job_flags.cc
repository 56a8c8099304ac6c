#include "client/job_flags.h"

#include <cmath>

#include <CLI/CLI.hpp>

#include "absl/strings/str_format.h"
#include "report/json_io.h"
#include "report/printable_text.h"

namespace torchscan {
namespace {

absl::Status FlagError(const std::string& flag, const std::string& what) {
  return absl::InvalidArgumentError(flag + ": " + what);
}

template <typename Enum>
absl::StatusOr<Enum> ParseEnum(const std::string& flag, const std::string& value, bool (*parse)(const std::string&, Enum*),
                               const std::string& accepted) {
  Enum e;
  if (!parse(value, &e)) return FlagError(flag, absl::StrFormat("\"%s\" is not one of %s", value, accepted));
  return e;
}

absl::StatusOr<v1::WorkloadSpec> Workload(const ModelFlags& f, const std::string& mode_flag, const std::string& mode,
                                          const std::string& dtype_flag, const std::string& dtype) {
  v1::WorkloadSpec spec;
  if (!f.torchscript.empty()) {
    absl::StatusOr<std::string> bytes = ReadFile(f.torchscript);
    if (!bytes.ok()) return FlagError("--torchscript", std::string(bytes.status().message()));
    spec.mutable_model()->mutable_torchscript()->set_module_bytes(*bytes);
    spec.mutable_model()->mutable_torchscript()->set_method(f.method);
  } else {
    absl::StatusOr<v1::ModelSpec::Builtin> builtin =
        ParseEnum<v1::ModelSpec::Builtin>("--model", f.model, &v1::ModelSpec::Builtin_Parse, "linear, resnet18, bert");
    if (!builtin.ok()) return builtin.status();
    if (*builtin == v1::ModelSpec::builtin_unspecified) return FlagError("--model", "choose linear, resnet18 or bert");
    spec.mutable_model()->set_builtin(*builtin);
    if (!f.method.empty()) return FlagError("--method", "only applies with --torchscript");
  }
  absl::StatusOr<v1::WorkloadSpec::ExecutionMode> m = ParseEnum<v1::WorkloadSpec::ExecutionMode>(
      mode_flag, mode, &v1::WorkloadSpec::ExecutionMode_Parse, "batch, per_sample");
  if (!m.ok()) return m.status();
  absl::StatusOr<v1::WorkloadSpec::Precision> p = ParseEnum<v1::WorkloadSpec::Precision>(
      dtype_flag, dtype, &v1::WorkloadSpec::Precision_Parse, "float32, bfloat16, float16");
  if (!p.ok()) return p.status();
  spec.set_execution_mode(*m);
  spec.set_dtype(*p);
  spec.set_device(f.device);
  spec.set_seed(0);
  return spec;
}

absl::Status FillRun(const RunFlags& f, v1::JobSpec* spec) {
  if (f.threads < 1 || f.threads > 4096) return FlagError("--threads", absl::StrFormat("must be 1..4096, got %d", f.threads));
  if (!(f.min_run_time > 0) || !std::isfinite(f.min_run_time) || f.min_run_time > 3600)
    return FlagError("--min-run-time", absl::StrFormat("must be seconds in (0, 3600], got %g", f.min_run_time));
  spec->set_label(f.label);
  v1::MeasurementOptions* o = spec->mutable_options();
  o->set_intra_op_threads(f.threads);
  o->set_min_run_time_s(f.min_run_time);
  o->set_rss(f.rss);
  return absl::OkStatus();
}

}  // namespace

void AddModelFlags(CLI::App* app, ModelFlags* f) {
  app->add_option("--model", f->model, "built-in model: linear | resnet18 | bert")->capture_default_str();
  app->add_option("--torchscript", f->torchscript, "a saved TorchScript module instead of a built-in");
  app->add_option("--method", f->method, "the TorchScript method to call (default forward)");
  app->add_option("--device", f->device, "cpu | cuda:N")->capture_default_str();
}

void AddRunFlags(CLI::App* app, RunFlags* f) {
  app->add_option("--threads", f->threads, "intra-op threads, set before the model is built")->capture_default_str();
  app->add_option("--min-run-time", f->min_run_time, "seconds of timed work per run")->capture_default_str();
  app->add_flag("--rss", f->rss, "measure peak RSS in a fresh child process per run");
  app->add_option("--label", f->label, "free text shown in job listings");
}

void AddMeasureFlags(CLI::App* app, MeasureFlags* f) {
  AddModelFlags(app, &f->model);
  AddRunFlags(app, &f->run);
  app->add_option("--execution-mode", f->execution_mode, "batch | per_sample")->capture_default_str();
  app->add_option("--dtype", f->dtype, "float32 | bfloat16 | float16")->capture_default_str();
}

void AddExampleFlags(CLI::App* app, CompareFlags* f) {
  app->add_option("--model", f->model.model, "linear | resnet18 | bert")->capture_default_str();
  app->add_option("--device", f->model.device, "cpu | cuda:N")->capture_default_str();
  AddRunFlags(app, &f->run);
  app->add_flag("--reverse", f->reverse, "time the candidate first, to check order effects");
}

void AddCompareFlags(CLI::App* app, CompareFlags* f) {
  AddModelFlags(app, &f->model);
  AddRunFlags(app, &f->run);
  app->add_option("--baseline-mode", f->baseline_mode, "batch | per_sample")->capture_default_str();
  app->add_option("--candidate-mode", f->candidate_mode, "batch | per_sample")->capture_default_str();
  app->add_option("--candidate-dtype", f->candidate_dtype, "float32 | bfloat16 | float16")->capture_default_str();
  app->add_option("--rtol", f->rtol, "output check relative tolerance")->capture_default_str();
  app->add_option("--atol", f->atol, "output check absolute tolerance")->capture_default_str();
  app->add_flag("--no-check", f->no_check, "run no output check (output_check: not_provided)");
  app->add_option("--check-module", f->check_module,
                  "a saved TorchScript module called with (baseline output, candidate output): None/True "
                  "passes, False or an assert fails");
  app->add_flag("--reverse", f->reverse, "time the candidate first, to check order effects");
  app->add_option("--rounds", f->rounds,
                  "timing rounds in alternating order (baseline, candidate, candidate, baseline ...)")
      ->capture_default_str();
}

absl::StatusOr<v1::JobSpec> MeasureSpecFromFlags(const MeasureFlags& f) {
  v1::JobSpec spec;
  if (absl::Status s = FillRun(f.run, &spec); !s.ok()) return s;
  absl::StatusOr<v1::WorkloadSpec> w = Workload(f.model, "--execution-mode", f.execution_mode, "--dtype", f.dtype);
  if (!w.ok()) return w.status();
  *spec.mutable_measure()->mutable_workload() = *std::move(w);
  return spec;
}

absl::StatusOr<v1::JobSpec> CompareSpecFromFlags(const CompareFlags& f) {
  v1::JobSpec spec;
  if (absl::Status s = FillRun(f.run, &spec); !s.ok()) return s;
  absl::StatusOr<v1::WorkloadSpec> baseline = Workload(f.model, "--baseline-mode", f.baseline_mode, "--dtype", "float32");
  if (!baseline.ok()) return baseline.status();
  absl::StatusOr<v1::WorkloadSpec> candidate =
      Workload(f.model, "--candidate-mode", f.candidate_mode, "--candidate-dtype", f.candidate_dtype);
  if (!candidate.ok()) return candidate.status();
  if (!(f.rtol >= 0) || !std::isfinite(f.rtol)) return FlagError("--rtol", absl::StrFormat("must be a number >= 0, got %g", f.rtol));
  if (!(f.atol >= 0) || !std::isfinite(f.atol)) return FlagError("--atol", absl::StrFormat("must be a number >= 0, got %g", f.atol));
  v1::CompareJob* job = spec.mutable_compare();
  *job->mutable_baseline() = *std::move(baseline);
  *job->mutable_candidate() = *std::move(candidate);
  job->set_reverse(f.reverse);
  if (f.rounds < 1 || f.rounds > 100)
    return FlagError("--rounds", absl::StrFormat("must be 1..100, got %d", f.rounds));
  job->set_rounds(f.rounds);
  if (f.no_check && !f.check_module.empty())
    return FlagError("--check-module", "cannot be combined with --no-check");
  if (f.no_check) {
    job->mutable_check()->set_skip(true);
  } else if (!f.check_module.empty()) {
    absl::StatusOr<std::string> bytes = ReadFile(f.check_module);
    if (!bytes.ok()) return FlagError("--check-module", std::string(bytes.status().message()));
    job->mutable_check()->mutable_torchscript()->set_module_bytes(*bytes);
  } else {
    job->mutable_check()->mutable_declarative()->set_rtol(f.rtol);
    job->mutable_check()->mutable_declarative()->set_atol(f.atol);
  }
  return spec;
}

absl::StatusOr<v1::JobSpec> LoadJobFile(const std::string& path) {
  absl::StatusOr<std::string> json = ReadFile(path);
  if (!json.ok()) return json.status();
  v1::JobSpec spec;
  if (absl::Status s = ParseJsonStrict(*json, path, &spec); !s.ok()) return s;
  if (spec.kind_case() == v1::JobSpec::KIND_NOT_SET)
    return absl::InvalidArgumentError(path + ": measure or compare: a job file needs exactly one of them");
  if (absl::Status s = RequirePrintableText(spec, "spec"); !s.ok())
    return absl::InvalidArgumentError(path + ": " + std::string(s.message()));
  return spec;
}

}  // namespace torchscan
