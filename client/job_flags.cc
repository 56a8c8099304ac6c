#include "client/job_flags.h"

#include <algorithm>
#include <cmath>

#include <CLI/CLI.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "io/file_io.h"
#include "io/proto_json.h"
#include "spec/builtin_models.h"
#include "spec/field_rules.h"
#include "spec/printable_text.h"

namespace torchscan {
namespace {

absl::Status FlagError(const std::string& flag, const std::string& what) { return spec::FieldError(flag, what); }

template <typename Enum>
absl::StatusOr<Enum> ParseEnum(const std::string& flag, const std::string& value,
                               bool (*parse)(const std::string&, Enum*), const std::string& accepted) {
  Enum e;
  if (!parse(value, &e)) return FlagError(flag, absl::StrFormat("\"%s\" is not one of %s", value, accepted));
  return e;
}

// The flag names of one side's VariantFlags, for its errors.
struct VariantNames {
  const char* mode;
  const char* dtype;
  const char* method;
  const char* freeze;
  const char* optimize;
  const char* channels_last;
};
constexpr VariantNames kMeasureNames = {"--execution-mode",         "--dtype",        "--method", "--freeze",
                                        "--optimize-for-inference", "--channels-last"};
constexpr VariantNames kBaselineNames = {"--baseline-mode",          "--dtype",        "--method", "--freeze",
                                         "--optimize-for-inference", "--channels-last"};
constexpr VariantNames kCandidateNames = {"--candidate-mode",
                                          "--candidate-dtype",
                                          "--candidate-method",
                                          "--candidate-freeze",
                                          "--candidate-optimize-for-inference",
                                          "--candidate-channels-last"};

// The model source: a built-in, or module bytes read from `file` (named by `file_flag`).
absl::Status SetModel(const ModelFlags& f, const std::string& file_flag, const std::string& file,
                      v1::WorkloadSpec* spec) {
  if (file.empty()) {
    const std::string name = f.model.empty() ? v1::ModelSpec::Builtin_Name(spec::DefaultBuiltin()) : f.model;
    absl::StatusOr<v1::ModelSpec::Builtin> builtin = ParseEnum<v1::ModelSpec::Builtin>(
        "--model", name, &v1::ModelSpec::Builtin_Parse, spec::BuiltinNameList(", ", ", "));
    if (!builtin.ok()) return builtin.status();
    if (spec::FindBuiltin(*builtin) == nullptr)
      return FlagError("--model", "choose " + spec::BuiltinNameList(", ", " or "));
    spec->mutable_model()->set_builtin(*builtin);
    return absl::OkStatus();
  }
  if (!f.model.empty()) return FlagError("--model", "choose a built-in model or " + file_flag + " FILE, not both");
  if (absl::Status s = SetModelFile(file, f.transport(), spec->mutable_model()); !s.ok())
    return FlagError(file_flag, std::string(s.message()));
  return absl::OkStatus();
}

absl::StatusOr<v1::WorkloadSpec> Workload(const ModelFlags& f, const std::string& file_flag, const std::string& file,
                                          const VariantFlags& v, const VariantNames& names) {
  v1::WorkloadSpec spec;
  if (absl::Status s = SetModel(f, file_flag, file, &spec); !s.ok()) return s;
  const bool script = spec.model().has_torchscript();
  const bool from_file = !spec.model().has_builtin();
  const std::string method = v.method.empty() ? f.method : v.method;
  if (!script) {
    for (const auto& [given, flag] :
         {std::pair{!method.empty(), v.method.empty() ? "--method" : names.method}, std::pair{v.freeze, names.freeze},
          std::pair{v.optimize_for_inference, names.optimize}})
      if (given)
        return FlagError(flag, "applies to TorchScript models only (--torchscript, --baseline/--candidate FILE)");
  }
  if (!from_file) {
    for (const auto& [given, flag] :
         {std::pair{f.work_units != 0, "--work-units"}, std::pair{!f.work_unit.empty(), "--work-unit"}})
      if (given)
        return FlagError(flag, "applies to models from a file only (--torchscript, --baseline/--candidate FILE)");
  } else if (f.inputs.empty()) {
    return FlagError("--input",
                     "a model from a file needs its inputs: one --input SHAPE[:DTYPE] (e.g. --input 64x256) "
                     "or --input-file FILE per argument of its method, in order");
  }
  if (script) spec.mutable_model()->mutable_torchscript()->set_method(method);
  if (!(f.work_units >= 0) || !std::isfinite(f.work_units))
    return FlagError("--work-units", absl::StrFormat("must be a number > 0, got %g", f.work_units));
  spec.set_work_units(f.work_units);
  spec.set_work_unit(f.work_unit);
  absl::StatusOr<v1::WorkloadSpec::ExecutionMode> m = ParseEnum<v1::WorkloadSpec::ExecutionMode>(
      names.mode, v.mode, &v1::WorkloadSpec::ExecutionMode_Parse, "batch, per_sample");
  if (!m.ok()) return m.status();
  absl::StatusOr<v1::WorkloadSpec::Precision> p = ParseEnum<v1::WorkloadSpec::Precision>(
      names.dtype, v.dtype, &v1::WorkloadSpec::Precision_Parse, "float32, bfloat16, float16");
  if (!p.ok()) return p.status();
  spec.set_execution_mode(*m);
  spec.set_dtype(*p);
  spec.set_freeze(v.freeze);
  spec.set_optimize_for_inference(v.optimize_for_inference);
  spec.set_channels_last(v.channels_last);
  spec.set_device(f.device);
  spec.set_seed(0);
  if (absl::Status s = AddInputFlags(f.inputs, f.transport(), &spec); !s.ok()) return s;
  if (absl::Status s = AddMetadataFlags(f.metadata, &spec); !s.ok()) return s;
  return spec;
}

// A job's free text (--label, --revision): one printable line of at most kMaxJobTextBytes.
absl::Status CheckJobText(const char* flag, const std::string& text) {
  if (std::any_of(text.begin(), text.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
    return FlagError(flag, "holds a control character (a tab, newline, escape...); use printable text on one line");
  if (text.size() > kMaxJobTextBytes)
    return FlagError(flag, absl::StrFormat("is %d bytes, more than the %d a job's text may hold; shorten it",
                                           text.size(), kMaxJobTextBytes));
  return absl::OkStatus();
}

absl::Status FillRun(const RunFlags& f, v1::JobSpec* spec) {
  if (absl::Status s = spec::CheckThreadCount("--threads", f.threads, kMaxThreads, /*zero_allowed=*/false); !s.ok())
    return s;
  if (!(f.min_run_time > 0) || !std::isfinite(f.min_run_time) || f.min_run_time > kMaxMinRunTimeFlagS)
    return FlagError("--min-run-time",
                     absl::StrFormat("must be seconds in (0, %g], got %g", kMaxMinRunTimeFlagS, f.min_run_time));
  if (absl::Status s = CheckJobText("--label", f.label); !s.ok()) return s;
  if (absl::Status s = CheckJobText("--revision", f.revision); !s.ok()) return s;
  if (f.node == kAllNodes)
    return FlagError("--node", "\"all\" is for calibrate (one calibration per node); name one node here");
  if (absl::Status s = CheckJobText("--node", f.node); !s.ok()) return s;
  spec->set_label(f.label);
  spec->set_revision(f.revision);
  spec->set_node(f.node);
  v1::MeasurementOptions* o = spec->mutable_options();
  o->set_intra_op_threads(f.threads);
  o->set_min_run_time_s(f.min_run_time);
  o->set_rss(f.rss);
  o->set_instructions(f.instructions);
  return absl::OkStatus();
}

std::string CheckChoices() {
  return absl::StrCat(spec::kNoToleranceChosen,
                      ": give --rtol R --atol A (add --check-dtype float32 for a precision "
                      "change), --check-module FILE, or --no-check");
}

absl::Status FillCheck(const CheckFlags& f, FileTransport transport, v1::OutputCheckSpec* check) {
  const bool tolerance = !std::isnan(f.rtol) || !std::isnan(f.atol);
  const int chosen = int{tolerance} + int{!f.check_module.empty()} + int{f.no_check};
  if (chosen == 0) return FlagError("--rtol/--atol", "the comparison needs its output check; " + CheckChoices());
  if (chosen > 1)
    return FlagError(f.no_check ? "--no-check" : "--check-module",
                     "choose one output check: --rtol/--atol, --check-module or --no-check");
  if (!tolerance && (!f.check_dtype.empty() || f.allow_non_finite))
    return FlagError(f.check_dtype.empty() ? "--allow-non-finite" : "--check-dtype", "applies to --rtol/--atol checks");
  if (f.no_check) {
    check->set_skip(true);
    return absl::OkStatus();
  }
  if (!f.check_module.empty()) {
    if (absl::Status s = SetModuleFile(f.check_module, transport, check->mutable_torchscript()); !s.ok())
      return FlagError("--check-module", std::string(s.message()));
    return absl::OkStatus();
  }
  for (const auto& [flag, value] : {std::pair{"--rtol", f.rtol}, std::pair{"--atol", f.atol}}) {
    if (std::isnan(value))
      return FlagError(flag, std::string("required with ") + (flag[2] == 'r' ? "--atol" : "--rtol") + " (" +
                                 spec::kNoToleranceChosen + ")");
    if (!spec::IsTolerance(value)) return FlagError(flag, absl::StrFormat("must be a number >= 0, got %g", value));
  }
  v1::DeclarativeCheck* d = check->mutable_declarative();
  d->set_rtol(f.rtol);
  d->set_atol(f.atol);
  d->set_allow_non_finite(f.allow_non_finite);
  if (!f.check_dtype.empty()) {
    absl::StatusOr<v1::DeclarativeCheck::CompareDType> dtype = ParseEnum<v1::DeclarativeCheck::CompareDType>(
        "--check-dtype", f.check_dtype, &v1::DeclarativeCheck::CompareDType_Parse,
        "float32, float64, bfloat16, float16");
    if (!dtype.ok()) return dtype.status();
    d->set_compare_dtype(*dtype);
  }
  return absl::OkStatus();
}

void AddModelFlags(CLI::App* app, ModelFlags* f) {
  app->add_option("--model", f->model, "built-in model: " + spec::BuiltinNameList(" | ", " | ", " (default)"));
  app->add_option("--torchscript", f->torchscript,
                  "a model file instead of a built-in: a TorchScript module (torch.jit.save) or an AOTInductor "
                  "package (.pt2, torch._inductor.aoti_compile_and_package), told apart by its contents");
  app->add_option("--method", f->method, "the TorchScript method to call (default forward)");
  app->add_option("--device", f->device, "cpu | cuda:N")->capture_default_str();
  app->add_option_function<std::string>(
         "--input", [f](const std::string& v) { f->inputs.emplace_back("--input", v); },
         "an input made here: [NAME=]SHAPE[:DTYPE][:LOW..HIGH], e.g. 64x256 or ids=4x8:int64:0..30522; repeat "
         "once per argument, in order")
      ->trigger_on_parse();
  app->add_option_function<std::string>(
         "--input-file", [f](const std::string& v) { f->inputs.emplace_back("--input-file", v); },
         "an input from a tensor file ([NAME=]FILE, saved with Python's torch.save or C++ torch::save)")
      ->trigger_on_parse();
  app->add_option("--metadata", f->metadata,
                  "KEY=VALUE input metadata of your own (e.g. dataset_revision=v3), repeatable; runs whose values "
                  "differ are not comparable");
  app->add_option("--work-units", f->work_units,
                  "TorchScript: work per call for throughput (default: dim 0 of input 0)");
  app->add_option("--work-unit", f->work_unit, "TorchScript: what a work unit is, e.g. images (default samples)");
  app->add_flag("--daemon-path", f->daemon_path,
                "send the paths of the files (modules, --check-module, --input-file, a --job file's paths) for the "
                "daemon's machine to read there, instead of uploading them (default: uploaded with the job)");
}

void AddRunFlags(CLI::App* app, RunFlags* f) {
  app->add_option("--threads", f->threads, "intra-op threads, set before the model is built")->capture_default_str();
  app->add_option("--min-run-time", f->min_run_time, "seconds of timed work per run")->capture_default_str();
  app->add_flag("--rss", f->rss, "measure peak RSS in a fresh child process per run");
  app->add_flag("--instructions", f->instructions,
                "count instructions per call under valgrind's callgrind, after timing (deterministic evidence for "
                "noisy machines; a compare diffs them function by function)");
  app->add_option("--label", f->label,
                  "free text shown in job listings; also the benchmark's name that `history NAME` follows");
  app->add_option("--revision", f->revision,
                  "the source revision measured, e.g. a git commit; names the point in `history`");
  app->add_option("--node", f->node,
                  "on a Slurm front daemon: run on this node of its partition (default: the node Slurm chooses)");
}

}  // namespace

const char* const kMeasureExamples = R"(
Your own model, saved from Python with torch.jit.script(model).save("mlp.pt"):
  torchscan-client measure --torchscript mlp.pt --input 64x256 --output out/
A model taking token ids and a mask, with inputs saved by torch.save:
  torchscan-client measure --torchscript enc.pt --input-file ids=ids.pt --input-file mask.pt --work-unit sequences
Files travel with the job (relative paths from here; the report names each with its sha256sum).
Files already on the daemon's machine, e.g. shared storage, sent as paths for it to read there:
  torchscan-client --daemon unix:/run/torchscand/torchscand.sock measure --torchscript /data/enc.pt --daemon-path ...
)";

const char* const kCompareExamples = R"(
Uncompiled versus compiled: the TorchScript module against an AOTInductor package of the same model,
made in Python with
  ep = torch.export.export(model, (torch.randn(64, 256),))
  torch._inductor.aoti_compile_and_package(ep, package_path="mlp.pt2")
  torch.jit.script(model).save("mlp.pt")
  torchscan-client compare --baseline mlp.pt --candidate mlp.pt2 --input 64x256 --rtol 1e-4 --atol 1e-5 --output out/
Original versus optimized file (e.g. torch.jit.freeze + torch.jit.optimize_for_inference, saved as mlp_opt.pt):
  torchscan-client compare --baseline mlp.pt --candidate mlp_opt.pt --input 64x256 --rtol 1e-4 --atol 1e-5 --output out/
The same file, frozen and optimized by TorchScan:
  torchscan-client compare --torchscript mlp.pt --candidate-optimize-for-inference --input 64x256 --rtol 1e-4 --atol 1e-5
A bfloat16 candidate, checked in float32 at a tolerance you choose:
  torchscan-client compare --torchscript mlp.pt --candidate-dtype bfloat16 --input 64x256 --rtol 0.02 --atol 0.02 --check-dtype float32
Files (modules, --check-module, --input-file) travel with the job, relative paths from here, and
the comparison names each with its sha256sum; --daemon-path sends paths for the daemon's machine.
)";

CompareFlags GuideExampleFlags() {
  CompareFlags f;
  f.baseline.mode = "per_sample";
  f.candidate.mode = "batch";
  f.check.rtol = 1e-4;
  f.check.atol = 1e-5;
  f.rounds = 1;  // the guide's example times each run in one pass, one after the other (--reverse: order)
  return f;
}

void AddMeasureFlags(CLI::App* app, MeasureFlags* f) {
  AddModelFlags(app, &f->model);
  AddRunFlags(app, &f->run);
  app->add_option("--execution-mode", f->variant.mode, "batch | per_sample")->capture_default_str();
  app->add_option("--dtype", f->variant.dtype, "float32 | bfloat16 | float16")->capture_default_str();
  app->add_flag("--freeze", f->variant.freeze, "TorchScript: torch::jit::freeze the module first");
  app->add_flag("--optimize-for-inference", f->variant.optimize_for_inference,
                "TorchScript: torch::jit::optimize_for_inference (freezes as well)");
  app->add_flag("--channels-last", f->variant.channels_last, "4-D weights and inputs in channels-last layout");
}

void AddCalibrateFlags(CLI::App* app, CalibrateFlags* f) {
  AddModelFlags(app, &f->measure.model);
  app->add_option("--threads", f->measure.run.threads, "intra-op threads, set before construction")
      ->capture_default_str();
  app->add_option("--min-run-time", f->measure.run.min_run_time, "seconds of timed work per run")
      ->capture_default_str();
  app->add_option("--label", f->measure.run.label, "free text shown in listings");
  app->add_option("--node", f->measure.run.node,
                  "on a Slurm front daemon: calibrate this node, or \"all\": each node of the partition, one job each "
                  "(default: the node Slurm chooses)");
  app->add_option("--execution-mode", f->measure.variant.mode, "batch | per_sample")->capture_default_str();
  app->add_option("--dtype", f->measure.variant.dtype, "float32 | bfloat16 | float16")->capture_default_str();
  app->add_option("--pairs", f->pairs, absl::StrFormat("A/A comparisons, 1..%d", kMaxCalibrationPairs))
      ->capture_default_str();
  app->add_option("--rounds", f->rounds,
                  absl::StrFormat("alternating timing rounds of each pair, 1..%d (default: the compare default, %d)",
                                  kMaxRounds, kDefaultRounds));
}

void AddExampleFlags(CLI::App* app, CompareFlags* f) {
  app->add_option("--model", f->model.model, spec::BuiltinNameList(" | ", " | ", " (default)"));
  app->add_option("--device", f->model.device, "cpu | cuda:N")->capture_default_str();
  AddRunFlags(app, &f->run);
  app->add_flag("--reverse", f->reverse, "time the candidate first, to check order effects");
}

void AddCompareFlags(CLI::App* app, CompareFlags* f) {
  AddModelFlags(app, &f->model);
  AddRunFlags(app, &f->run);
  app->add_option("--baseline", f->baseline_file,
                  "the baseline's model file: TorchScript or a .pt2 package (with --candidate)");
  app->add_option("--candidate", f->candidate_file,
                  "the candidate's model file: TorchScript or a .pt2 package (with --baseline)");
  app->add_option("--baseline-mode", f->baseline.mode, "batch | per_sample")->capture_default_str();
  app->add_option("--candidate-mode", f->candidate.mode, "batch | per_sample")->capture_default_str();
  app->add_option("--candidate-dtype", f->candidate.dtype, "float32 | bfloat16 | float16")->capture_default_str();
  app->add_option("--candidate-method", f->candidate.method, "TorchScript: the candidate calls this method instead");
  app->add_flag("--candidate-freeze", f->candidate.freeze, "TorchScript: freeze the candidate");
  app->add_flag("--candidate-optimize-for-inference", f->candidate.optimize_for_inference,
                "TorchScript: optimize_for_inference the candidate (freezes as well)");
  app->add_flag("--candidate-channels-last", f->candidate.channels_last, "the candidate in channels-last layout");
  app->add_option("--rtol", f->check.rtol, "output check: relative tolerance (with --atol; your choice, no default)");
  app->add_option("--atol", f->check.atol, "output check: absolute tolerance (with --rtol)");
  app->add_option("--check-dtype", f->check.check_dtype,
                  "cast both outputs to this dtype before --rtol/--atol: float32 | float64 | bfloat16 | float16");
  app->add_flag("--allow-non-finite", f->check.allow_non_finite, "NaN/Inf outputs do not fail the check by themselves");
  app->add_option("--check-module", f->check.check_module,
                  "a saved TorchScript module called with (baseline output, candidate output): None/True "
                  "passes, False or an assert fails");
  app->add_flag("--no-check", f->check.no_check, "run no output check (output_check: not_provided)");
  app->add_flag("--reverse", f->reverse, "time the candidate first, to check order effects");
  app->add_option("--rounds", f->rounds,
                  "timing rounds in alternating order (baseline, candidate, candidate, baseline ...), each "
                  "timing its share of --min-run-time; 1: one pass of each, one after the other")
      ->capture_default_str();
  app->add_option("--smallest-change", f->smallest_change,
                  "the smallest relative change that matters (0.01: 1 %): after the planned rounds the compare times "
                  "more build pairs until its paired interval lies beyond it (faster/slower) or within it "
                  "(equivalent), or --max-time is up")
      ->capture_default_str();
  app->add_option("--max-time", f->max_time,
                  "seconds the comparison may take in its worker, builds and checks included: no build pair starts "
                  "that would pass it")
      ->capture_default_str();
  app->add_option("--max-other-cpu-share", f->max_other_cpu_share,
                  "build pairs timed while other processes used more than this share of the job's CPUs are left out "
                  "of the decision, and a compare timed mostly so makes no claim (1: never left out)")
      ->capture_default_str();
  app->add_flag("--fixed-length", f->fixed_length, "time the planned rounds only, no extra build pairs");
}

absl::StatusOr<v1::JobSpec> MeasureSpecFromFlags(const MeasureFlags& f) {
  v1::JobSpec spec;
  if (absl::Status s = FillRun(f.run, &spec); !s.ok()) return s;
  absl::StatusOr<v1::WorkloadSpec> w =
      Workload(f.model, "--torchscript", f.model.torchscript, f.variant, kMeasureNames);
  if (!w.ok()) return w.status();
  *spec.mutable_measure()->mutable_workload() = *std::move(w);
  return spec;
}

absl::StatusOr<v1::JobSpec> CalibrateSpecFromFlags(const CalibrateFlags& f) {
  if (f.pairs < 1 || f.pairs > kMaxCalibrationPairs)
    return FlagError("--pairs", absl::StrFormat("must be 1..%d, got %d", kMaxCalibrationPairs, f.pairs));
  if (f.rounds != 0)
    if (absl::Status s = ValidateRoundsFlag(f.rounds); !s.ok()) return s;
  MeasureFlags one = f.measure;
  if (one.run.node == kAllNodes) one.run.node.clear();  // the caller runs one job per node
  absl::StatusOr<v1::JobSpec> measure = MeasureSpecFromFlags(one);
  if (!measure.ok()) return measure.status();
  v1::JobSpec spec = *std::move(measure);
  v1::WorkloadSpec workload = spec.measure().workload();
  v1::CalibrateJob* job = spec.mutable_calibrate();  // replaces the measure job, keeps the options
  *job->mutable_workload() = std::move(workload);
  job->set_pairs(f.pairs);
  job->set_rounds(f.rounds);
  return spec;
}

absl::Status ValidateRoundsFlag(int rounds) {
  if (rounds < 1 || rounds > kMaxRounds)
    return FlagError("--rounds", absl::StrFormat("must be 1..%d, got %d", kMaxRounds, rounds));
  return absl::OkStatus();
}

absl::StatusOr<v1::JobSpec> CompareSpecFromFlags(const CompareFlags& f) {
  v1::JobSpec spec;
  if (absl::Status s = FillRun(f.run, &spec); !s.ok()) return s;
  if (f.baseline_file.empty() != f.candidate_file.empty())
    return FlagError(f.baseline_file.empty() ? "--baseline" : "--candidate",
                     "give both --baseline FILE and --candidate FILE (or --torchscript FILE for both sides)");
  if (!f.baseline_file.empty() && !f.model.torchscript.empty())
    return FlagError("--torchscript", "names one module for both sides; with --baseline and --candidate leave it out");
  const bool two_files = !f.baseline_file.empty();
  absl::StatusOr<v1::WorkloadSpec> baseline =
      Workload(f.model, two_files ? "--baseline" : "--torchscript", two_files ? f.baseline_file : f.model.torchscript,
               f.baseline, kBaselineNames);
  if (!baseline.ok()) return baseline.status();
  absl::StatusOr<v1::WorkloadSpec> candidate =
      Workload(f.model, two_files ? "--candidate" : "--torchscript", two_files ? f.candidate_file : f.model.torchscript,
               f.candidate, kCandidateNames);
  if (!candidate.ok()) return candidate.status();
  v1::CompareJob* job = spec.mutable_compare();
  *job->mutable_baseline() = *std::move(baseline);
  *job->mutable_candidate() = *std::move(candidate);
  job->set_reverse(f.reverse);
  if (absl::Status s = ValidateRoundsFlag(f.rounds); !s.ok()) return s;
  job->set_rounds(f.rounds);
  if (!(f.smallest_change > 0 && f.smallest_change <= kMaxSmallestChange))
    return FlagError("--smallest-change", absl::StrFormat("must be above 0 and at most %g (0.01 is 1 %%), got %g",
                                                          kMaxSmallestChange, f.smallest_change));
  if (!(f.max_time > 0 && f.max_time <= kMaxCompareMaxTimeS))
    return FlagError("--max-time", absl::StrFormat("must be above 0 and at most %g seconds, got %g",
                                                   kMaxCompareMaxTimeS, f.max_time));
  if (!(f.max_other_cpu_share >= kMinMaxOtherCpuShare && f.max_other_cpu_share <= 1))
    return FlagError(
        "--max-other-cpu-share",
        absl::StrFormat("must be from %g to 1 (a share of the job's CPUs; 1 never leaves a pair out), got %g",
                        kMinMaxOtherCpuShare, f.max_other_cpu_share));
  job->set_smallest_change(f.smallest_change);
  job->set_max_time_s(f.max_time);
  job->set_max_other_cpu_share(f.max_other_cpu_share);
  job->set_fixed_length(f.fixed_length);
  if (absl::Status s = FillCheck(f.check, f.model.transport(), job->mutable_check()); !s.ok()) return s;
  return spec;
}

absl::StatusOr<v1::JobSpec> LoadJobFile(const std::string& path) {
  absl::StatusOr<std::string> json = ReadFile(path);
  if (!json.ok()) return json.status();
  v1::JobSpec spec;
  if (absl::Status s = ParseJsonStrict(*json, path, &spec); !s.ok()) return s;
  if (spec.kind_case() == v1::JobSpec::KIND_NOT_SET)
    return absl::InvalidArgumentError(path + ": measure or compare: a job file needs exactly one of them");
  if (absl::Status s = spec::RequirePrintableText(spec, "spec"); !s.ok())
    return absl::InvalidArgumentError(path + ": " + std::string(s.message()));
  return spec;
}

absl::StatusOr<v1::JobSpec> LoadJobFileWithFiles(const std::string& path, FileTransport transport) {
  absl::StatusOr<v1::JobSpec> spec = LoadJobFile(path);
  if (!spec.ok()) return spec.status();
  if (absl::Status s = ResolveJobFiles(path, transport, &*spec); !s.ok()) return s;
  return spec;
}

}  // namespace torchscan
