#include "spec/job_spec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "spec/device_name.h"
#include "spec/field_rules.h"
#include "spec/model_format.h"
#include "spec/printable_text.h"

namespace torchscan::spec {
namespace {

namespace fs = std::filesystem;

absl::Status Invalid(const std::string& field, const std::string& what) { return FieldError(field, what); }

// A path on the daemon's machine that a sandboxed job opens must lie in a shared path: it sees
// nothing else there.
absl::Status CheckShared(const std::string& field, const std::string& path, const JobSpecLimits& limits) {
  if (!limits.sandboxed) return absl::OkStatus();
  const std::string normal = fs::path(path).lexically_normal().string();
  for (const std::string& shared : limits.shared_paths) {
    std::string dir = fs::path(shared).lexically_normal().string();
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (fs::path(path).is_absolute() && (normal == dir || dir == "/" || absl::StartsWith(normal, dir + "/")))
      return absl::OkStatus();
  }
  // The whole path (printable: RequirePrintableText ran first), so that the user sees which.
  return Invalid(field, absl::StrCat("\"", path, "\" is not shared with this daemon's sandboxed jobs (shared_paths: ",
                                     limits.shared_paths.empty() ? "none" : absl::StrJoin(limits.shared_paths, ", "),
                                     "); send the file with the job (leave out --daemon-path), or ask the daemon's "
                                     "admin to share its folder (torchscand --share)"));
}

// Dimensions >= 0 whose product fits int64 (the worker checks the memory it needs).
absl::Status ValidateGenerated(const std::string& field, const v1::GeneratedTensor& g) {
  if (!v1::GeneratedTensor::DType_IsValid(g.dtype()))
    return Invalid(field + ".dtype", absl::StrCat(g.dtype(), " is not one of float32, int64, int32"));
  int64_t elements = 1;
  for (int d = 0; d < g.shape_size(); ++d) {
    const int64_t n = g.shape(d);
    if (n < 0)
      return Invalid(absl::StrCat(field, ".shape[", d, "]"), absl::StrCat(n, " is negative; dimensions are >= 0"));
    if (n > 0 && elements > std::numeric_limits<int64_t>::max() / 8 / n)
      return Invalid(field + ".shape", "has more elements than int64 can count; use a smaller shape");
    elements *= n;
  }
  return absl::OkStatus();
}

// The daemon's own rules on top of ValidateWorkloadFields: paths on its machine lie in a shared
// path, and the device is one of its own.
absl::Status ValidateWorkload(const std::string& field, const v1::WorkloadSpec& w, const JobSpecLimits& limits) {
  if (absl::Status s = ValidateWorkloadFields(field, w); !s.ok()) return s;
  if (const std::optional<ModelFileView> file = FindModelFormat(w.model())->File(w.model());
      file && !file->sent_as_bytes)
    if (absl::Status s = CheckShared(absl::StrCat(field, ".", file->field, ".path"), std::string(file->path), limits);
        !s.ok())
      return s;
  for (int i = 0; i < w.inputs_size(); ++i)
    if (w.inputs(i).source_case() == v1::InputSpec::kTensorFile)
      if (absl::Status s =
              CheckShared(absl::StrCat(field, ".inputs[", i, "].tensor_file"), w.inputs(i).tensor_file(), limits);
          !s.ok())
        return s;
  absl::StatusOr<DeviceName> parsed = ParseDeviceName(w.device());
  if (!parsed.ok())
    return Invalid(
        field + ".device",
        absl::StrCat(parsed.status().message(), " (this daemon's devices: ", absl::StrJoin(limits.devices, ", "), ")"));
  // Compared by their parsed names: a job's "cuda" is a daemon's "cuda:0".
  const std::string& device = parsed->text;
  const auto same = [&](const std::string& offered) {
    absl::StatusOr<DeviceName> name = ParseDeviceName(offered);
    return name.ok() && name->text == device;
  };
  if (std::none_of(limits.devices.begin(), limits.devices.end(), same)) {
    const std::string offered = absl::StrJoin(limits.devices, ", ");
    const bool offers_cuda = std::any_of(limits.devices.begin(), limits.devices.end(),
                                         [](const std::string& d) { return absl::StartsWith(d, "cuda"); });
    if (absl::StartsWith(device, "cuda") && !offers_cuda)
      return Invalid(field + ".device",
                     absl::StrCat(QuoteForMessage(device), " is not a device of this daemon: it offers ", offered,
                                  " (a daemon offers the devices its --device flags or config list); use device cpu, "
                                  "or submit to a daemon on a GPU machine that offers ",
                                  device, " (--daemon ADDRESS, or TORCHSCAN_DAEMON)"));
    return Invalid(field + ".device",
                   absl::StrCat(QuoteForMessage(device), " is not a device of this daemon (devices: ", offered,
                                "); use one of them"));
  }
  return absl::OkStatus();
}

absl::Status NonNegative(const std::string& field, double value) {
  if (!std::isfinite(value) || value < 0) return Invalid(field, absl::StrCat(value, " is not a number >= 0"));
  return absl::OkStatus();
}

absl::Status ValidateOptions(const v1::MeasurementOptions& o, const JobSpecLimits& limits) {
  if (absl::Status s = ValidateMeasurementOptions(o); !s.ok()) return s;
  for (const auto& [field, threads] : {std::pair{"spec.options.intra_op_threads", o.intra_op_threads()},
                                       std::pair{"spec.options.inter_op_threads", o.inter_op_threads()}})
    if (threads > limits.max_threads)
      return Invalid(field, absl::StrCat(threads, " is above this daemon's limit of ", limits.max_threads, " threads"));
  for (const auto& [field, seconds] : {std::pair{"spec.options.min_run_time_s", o.min_run_time_s()},
                                       std::pair{"spec.options.max_run_time_s", o.max_run_time_s()}})
    if (seconds > limits.max_run_time_s)
      return Invalid(field, absl::StrCat(seconds, " s is above the limit of ", limits.max_run_time_s,
                                         " s; jobs past the daemon's job_wall_time_s are killed anyway"));
  if (o.instruction_calls() < 0 || o.instruction_calls() > kMaxInstructionCalls)
    return Invalid("spec.options.instruction_calls",
                   absl::StrCat(o.instruction_calls(), " is outside 0..", kMaxInstructionCalls, " (0: the default, ",
                                kDefaultInstructionCalls, " calls per counted loop)"));
  if (o.instructions() && !limits.rss_available)
    return absl::FailedPreconditionError(
        "spec.options.instructions: this daemon has no child configured to count in (rss_child_path); submit "
        "without instructions or start torchscand with --rss-child");
  if (o.rss() && !limits.rss_available) {
    return absl::FailedPreconditionError(
        "spec.options.rss: this daemon has no RSS child configured (rss_child_path); submit without rss or "
        "start torchscand with --rss-child");
  }
  return absl::OkStatus();
}

// Peak RSS and instruction counts measure the host process: refused for a job on a GPU
// (spec/device_name.h PassUnsupportedOn), naming the option and the device. The devices were
// parsed by ValidateWorkload.
absl::Status CheckPassesOnDevices(const v1::JobSpec& spec) {
  const std::vector<const v1::WorkloadSpec*> workloads = JobWorkloads(spec);
  for (const auto& [field, pass, asked] :
       {std::tuple{"spec.options.rss", "rss", spec.options().rss()},
        std::tuple{"spec.options.instructions", "instructions", spec.options().instructions()}}) {
    if (!asked) continue;
    for (const v1::WorkloadSpec* w : workloads) {
      absl::StatusOr<DeviceName> device = ParseDeviceName(w->device());
      if (!device.ok()) continue;
      if (const std::string why = PassUnsupportedOn(*device, pass); !why.empty())
        return Invalid(field, absl::StrCat(why, "; submit without it, or run the job on cpu"));
    }
  }
  return absl::OkStatus();
}

// "66.9 MiB"-style sizes for messages about uploads.
std::string Bytes(int64_t bytes) {
  if (bytes < (int64_t{1} << 20)) return absl::StrCat(bytes, " bytes");
  return absl::StrFormat("%.1f MiB", static_cast<double>(bytes) / (1 << 20));
}

// How to send a job whose files are too large for max_upload_bytes.
constexpr const char* kWaysOut =
    "put them where the daemon's machine can read them and send their paths instead (torchscan-client "
    "--daemon-path), or ask the daemon's administrator to raise max_upload_bytes (torchscand --max-upload)";

// ResourceExhausted "spec: <what> exceed this daemon's max_upload_bytes M (A > B)<then>".
absl::Status OverUploadLimit(const std::string& what, int64_t size, int64_t max_upload_bytes, const std::string& then) {
  return absl::ResourceExhaustedError(absl::StrCat("spec: ", what, " exceed this daemon's max_upload_bytes ",
                                                   max_upload_bytes, " (", Bytes(size), " > ", Bytes(max_upload_bytes),
                                                   ")", then));
}

}  // namespace

absl::Status ValidateMeasurementOptions(const v1::MeasurementOptions& o) {
  const std::pair<const char*, double> numbers[] = {
      {"spec.options.min_run_time_s", o.min_run_time_s()},     {"spec.options.min_blocks", o.min_blocks()},
      {"spec.options.max_run_time_s", o.max_run_time_s()},     {"spec.options.profile_calls", o.profile_calls()},
      {"spec.options.intra_op_threads", o.intra_op_threads()}, {"spec.options.inter_op_threads", o.inter_op_threads()}};
  for (const auto& [field, value] : numbers)
    if (absl::Status s = NonNegative(field, value); !s.ok()) return s;
  return absl::OkStatus();
}

absl::Status ValidateOutputCheck(const v1::OutputCheckSpec& check) {
  const std::string kChoices =
      absl::StrCat(kNoToleranceChosen,
                   ": set check.declarative with rtol and atol (torchscan-client --rtol R --atol A), check.torchscript "
                   "(--check-module FILE), or check.skip: true (--no-check)");
  switch (check.kind_case()) {
    case v1::OutputCheckSpec::kDeclarative: {
      const v1::DeclarativeCheck& d = check.declarative();
      for (const auto& [field, given, value] :
           {std::tuple{"spec.compare.check.declarative.rtol", d.has_rtol(), d.rtol()},
            std::tuple{"spec.compare.check.declarative.atol", d.has_atol(), d.atol()}}) {
        if (!given) return Invalid(field, absl::StrCat("required; ", kChoices));
        if (absl::Status s = NonNegative(field, value); !s.ok()) return s;
      }
      if (!v1::DeclarativeCheck::CompareDType_IsValid(d.compare_dtype()))
        return Invalid(
            "spec.compare.check.declarative.compare_dtype",
            absl::StrCat(d.compare_dtype(), " is not one of as_output, float32, float64, bfloat16, float16"));
      return absl::OkStatus();
    }
    case v1::OutputCheckSpec::kTorchscript:
      // The module itself is loaded by the worker (the daemon does not load LibTorch).
      return ValidateTorchScriptFile("spec.compare.check.torchscript", check.torchscript());
    case v1::OutputCheckSpec::kSkip:
      if (!check.skip()) return Invalid("spec.compare.check.skip", absl::StrCat("false chooses no check; ", kChoices));
      return absl::OkStatus();
    default: return Invalid("spec.compare.check", absl::StrCat("required; ", kChoices));
  }
}

absl::Status ValidateWorkloadFields(const std::string& field, const v1::WorkloadSpec& w) {
  const ModelFormat* format = FindModelFormat(w.model());
  if (format == nullptr) return Invalid(field + ".model", "required: set " + ModelFormatChoices());
  if (absl::Status s = format->Validate(field, w); !s.ok()) return s;
  if (w.work_units() < 0)
    return Invalid(field + ".work_units", absl::StrCat(w.work_units(), " is negative; give a count >= 0 (0: default)"));
  if (!v1::WorkloadSpec::ExecutionMode_IsValid(w.execution_mode()))
    return Invalid(field + ".execution_mode", absl::StrCat(w.execution_mode(), " is not one of batch, per_sample"));
  if (!v1::WorkloadSpec::Precision_IsValid(w.dtype()))
    return Invalid(field + ".dtype", absl::StrCat(w.dtype(), " is not one of float32, bfloat16, float16"));
  for (int i = 0; i < w.inputs_size(); ++i) {
    const std::string input = absl::StrCat(field, ".inputs[", i, "]");
    const v1::InputSpec& in = w.inputs(i);
    if (in.source_case() == v1::InputSpec::SOURCE_NOT_SET)
      return Invalid(input, "set generated, tensor_file or tensor_bytes");
    if (in.has_generated())
      if (absl::Status s = ValidateGenerated(input + ".generated", in.generated()); !s.ok()) return s;
    if (absl::Status s = CheckPathLength(input + ".tensor_file", in.tensor_file()); !s.ok()) return s;
    if (absl::Status s = CheckPathLength(input + ".source_name", in.source_name()); !s.ok()) return s;
    if (in.source_case() == v1::InputSpec::kTensorBytes && in.tensor_bytes().empty())
      return Invalid(input + ".tensor_bytes", "is empty; send the bytes of a tensor file saved with torch.save");
  }
  return ValidateInputMetadata(field + ".input_metadata", w.input_metadata());
}

absl::Status ValidateInputMetadata(const std::string& field,
                                   const google::protobuf::Map<std::string, std::string>& metadata) {
  const std::string& where = field;
  if (metadata.size() > kMaxInputMetadataEntries)
    return Invalid(where, absl::StrCat(metadata.size(), " entries; at most ", kMaxInputMetadataEntries));
  for (const auto& [key, value] : metadata) {
    const bool charset = std::all_of(
        key.begin(), key.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '.' || c == '-'; });
    if (key.empty() || key.size() > kMaxInputMetadataKeyBytes || !charset)
      return Invalid(where, absl::StrCat("key ", QuoteForMessage(key), ": use 1 to ", kMaxInputMetadataKeyBytes,
                                         " characters of letters, digits, '_', '.' and '-'"));
    if (IsOwnInputMetadataKey(key))
      return Invalid(where,
                     absl::StrCat("key ", QuoteForMessage(key), " ", kOwnMetadataKey, ", e.g. dataset_revision"));
    if (value.size() > kMaxInputMetadataValueBytes)
      return Invalid(absl::StrCat(where, ".", key),
                     absl::StrCat(value.size(), " bytes; at most ", kMaxInputMetadataValueBytes));
  }
  return absl::OkStatus();
}

std::string QuoteForMessage(const std::string& value) {
  constexpr size_t kShown = 64;
  if (value.size() <= kShown) return absl::StrCat("\"", absl::CHexEscape(value), "\"");
  return absl::StrCat("\"", absl::CHexEscape(value.substr(0, kShown)), "...\" (", value.size(), " bytes)");
}

JobSpecLimits LimitsOf(const v1::DaemonConfig& config) {
  JobSpecLimits limits;
  limits.max_upload_bytes = config.limits().max_upload_bytes();
  limits.devices.assign(config.devices().begin(), config.devices().end());
  limits.rss_available = !config.rss_child_path().empty();
  limits.sandboxed = config.sandbox() == kSandboxNamespaces;
  limits.shared_paths.assign(config.shared_paths().begin(), config.shared_paths().end());
  return limits;
}

absl::Status CheckUploadSize(const v1::JobSpec& spec, int64_t max_upload_bytes) {
  const int64_t size = static_cast<int64_t>(spec.ByteSizeLong());
  if (max_upload_bytes <= 0 || size <= max_upload_bytes) return absl::OkStatus();
  // The files sent with the job, by name (the same file on both sides of a comparison once).
  std::map<std::string, std::pair<int64_t, int>> files;  // name -> (bytes of one copy, copies)
  // A file's name, or for bytes written into a job file by hand, the field that holds them.
  const auto add = [&files](absl::string_view name, absl::string_view field, absl::string_view bytes) {
    if (bytes.empty()) return;
    auto& [one, copies] = files[name.empty() ? absl::StrCat(field, " (bytes in the job)") : std::string(name)];
    one = static_cast<int64_t>(bytes.size());
    ++copies;
  };
  std::vector<const v1::WorkloadSpec*> workloads;
  if (spec.has_measure()) workloads.push_back(&spec.measure().workload());
  if (spec.has_calibrate()) workloads.push_back(&spec.calibrate().workload());
  if (spec.has_compare()) workloads.insert(workloads.end(), {&spec.compare().baseline(), &spec.compare().candidate()});
  for (const v1::WorkloadSpec* w : workloads) {
    if (const ModelFormat* format = FindModelFormat(w->model()); format != nullptr)
      if (const std::optional<ModelFileView> file = format->File(w->model()))
        add(file->source_name, absl::StrCat(file->field, ".", file->bytes_field), file->bytes);
    for (const v1::InputSpec& input : w->inputs())
      add(input.source_name(), "inputs[].tensor_bytes", input.tensor_bytes());
  }
  if (spec.has_compare())
    add(spec.compare().check().torchscript().source_name(), "compare.check.torchscript.module_bytes",
        spec.compare().check().torchscript().module_bytes());
  std::vector<std::pair<int64_t, std::string>> listed;
  for (const auto& [name, copies] : files)
    listed.emplace_back(
        copies.first * copies.second,
        absl::StrCat(name, " ", Bytes(copies.first), copies.second > 1 ? absl::StrCat(" x", copies.second) : ""));
  std::sort(listed.rbegin(), listed.rend());
  std::vector<std::string> names;
  for (const auto& entry : listed) names.push_back(entry.second);
  return OverUploadLimit(absl::StrCat(size, " bytes"), size, max_upload_bytes,
                         names.empty()
                             ? "; send a smaller job"
                             : absl::StrCat("; the files sent with it: ", absl::StrJoin(names, ", "), "; ", kWaysOut));
}

absl::Status CheckSubmitRequestSize(int64_t request_bytes, int64_t max_upload_bytes) {
  if (max_upload_bytes <= 0 || request_bytes <= max_upload_bytes + kSubmitRequestFraming) return absl::OkStatus();
  return OverUploadLimit(absl::StrCat("the request's ", request_bytes, " bytes"), request_bytes, max_upload_bytes,
                         absl::StrCat("; refused unread, from its size alone: send a smaller job, or if it carries "
                                      "files, ",
                                      kWaysOut));
}

absl::Status ValidateJobSpec(const v1::JobSpec& spec, const JobSpecLimits& limits) {
  if (absl::Status s = CheckUploadSize(spec, limits.max_upload_bytes); !s.ok()) return s;
  if (absl::Status s = RequirePrintableText(spec, "spec"); !s.ok()) return s;
  switch (spec.kind_case()) {
    case v1::JobSpec::kMeasure:
      if (!spec.measure().has_workload()) return Invalid("spec.measure.workload", "required");
      if (absl::Status s = ValidateWorkload("spec.measure.workload", spec.measure().workload(), limits); !s.ok())
        return s;
      break;
    case v1::JobSpec::kCompare: {
      const v1::CompareJob& c = spec.compare();
      if (!c.has_baseline()) return Invalid("spec.compare.baseline", "required");
      if (!c.has_candidate()) return Invalid("spec.compare.candidate", "required");
      if (absl::Status s = ValidateWorkload("spec.compare.baseline", c.baseline(), limits); !s.ok()) return s;
      if (absl::Status s = ValidateWorkload("spec.compare.candidate", c.candidate(), limits); !s.ok()) return s;
      if (absl::Status s = ValidateOutputCheck(c.check()); !s.ok()) return s;
      if (c.check().has_torchscript() && c.check().torchscript().source_case() == v1::TorchScriptSpec::kPath)
        if (absl::Status s = CheckShared("spec.compare.check.torchscript.path", c.check().torchscript().path(), limits);
            !s.ok())
          return s;
      if (c.rounds() < 0 || c.rounds() > kMaxRounds)
        return Invalid("spec.compare.rounds",
                       absl::StrCat("must be 0 or 1 (one pass) up to ", kMaxRounds, " alternating rounds"));
      if (!(c.smallest_change() >= 0 && c.smallest_change() <= kMaxSmallestChange))
        return Invalid("spec.compare.smallest_change",
                       absl::StrCat("must be 0 (the default, ", kDefaultSmallestChange, ") up to ", kMaxSmallestChange,
                                    " (a relative change: 0.01 is 1 %), got ", c.smallest_change()));
      if (!(c.max_time_s() >= 0 && c.max_time_s() <= kMaxCompareMaxTimeS))
        return Invalid("spec.compare.max_time_s",
                       absl::StrCat("must be 0 (the default, ", kDefaultCompareMaxTimeS, " s) up to ",
                                    kMaxCompareMaxTimeS, " s, got ", c.max_time_s()));
      if (!(c.max_other_cpu_share() == 0 ||
            (c.max_other_cpu_share() >= kMinMaxOtherCpuShare && c.max_other_cpu_share() <= 1)))
        return Invalid(
            "spec.compare.max_other_cpu_share",
            absl::StrCat("must be 0 (the default, ", kDefaultMaxOtherCpuShare, ") or from ", kMinMaxOtherCpuShare,
                         " to 1 (a share of the job's CPUs; 1 never discards), got ", c.max_other_cpu_share()));
      break;
    }
    case v1::JobSpec::kCalibrate: {
      const v1::CalibrateJob& c = spec.calibrate();
      // No workload: the worker's built-in reference workload.
      if (c.has_workload())
        if (absl::Status s = ValidateWorkload("spec.calibrate.workload", c.workload(), limits); !s.ok()) return s;
      if (c.pairs() < 0 || c.pairs() > kMaxCalibrationPairs)
        return Invalid("spec.calibrate.pairs",
                       absl::StrCat("must be 0 (the default, ", kDefaultCalibrationPairs, ") or 1 up to ",
                                    kMaxCalibrationPairs, " A/A pairs, got ", c.pairs()));
      if (c.rounds() < 0 || c.rounds() > kMaxRounds)
        return Invalid("spec.calibrate.rounds", absl::StrCat("must be 0 (the compare default) or 1 up to ", kMaxRounds,
                                                             " alternating rounds, got ", c.rounds()));
      break;
    }
    default: return Invalid("spec", "set exactly one of measure, compare or calibrate");
  }
  if (absl::Status s = ValidateOptions(spec.options(), limits); !s.ok()) return s;
  return CheckPassesOnDevices(spec);
}

v1::JobSpec WithDaemonDefaults(v1::JobSpec spec, const v1::DaemonConfig& config) {
  v1::MeasurementOptions* o = spec.mutable_options();
  if (o->intra_op_threads() == 0) o->set_intra_op_threads(config.default_intra_op_threads());
  if (o->inter_op_threads() == 0) o->set_inter_op_threads(config.default_inter_op_threads());
  return spec;
}

v1::JobSpec WithoutUploadedBytes(v1::JobSpec spec) {
  const auto strip = [](v1::WorkloadSpec* w) {
    if (const ModelFormat* format = FindModelFormat(w->model()); format != nullptr)
      format->ClearBytes(w->mutable_model());
    for (v1::InputSpec& input : *w->mutable_inputs())
      if (input.source_case() == v1::InputSpec::kTensorBytes) input.set_tensor_bytes("");
  };
  if (spec.has_measure() && spec.measure().has_workload()) strip(spec.mutable_measure()->mutable_workload());
  if (spec.has_calibrate() && spec.calibrate().has_workload()) strip(spec.mutable_calibrate()->mutable_workload());
  if (spec.has_compare()) {
    v1::CompareJob* c = spec.mutable_compare();
    if (c->has_baseline()) strip(c->mutable_baseline());
    if (c->has_candidate()) strip(c->mutable_candidate());
    if (c->check().has_torchscript() && c->check().torchscript().source_case() == v1::TorchScriptSpec::kModuleBytes)
      c->mutable_check()->mutable_torchscript()->set_module_bytes("");
  }
  return spec;
}

std::vector<const v1::WorkloadSpec*> JobWorkloads(const v1::JobSpec& spec) {
  std::vector<const v1::WorkloadSpec*> workloads;
  if (spec.has_measure()) workloads.push_back(&spec.measure().workload());
  if (spec.has_compare()) workloads = {&spec.compare().baseline(), &spec.compare().candidate()};
  if (spec.has_calibrate() && spec.calibrate().has_workload()) workloads.push_back(&spec.calibrate().workload());
  return workloads;
}

std::vector<std::string> JobDeviceNames(const v1::JobSpec& spec) {
  std::vector<std::string> names;
  for (const v1::WorkloadSpec* w : JobWorkloads(spec)) {
    absl::StatusOr<DeviceName> device = ParseDeviceName(w->device());
    const std::string name = device.ok() ? device->text : w->device();
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (names.empty()) names.push_back("cpu");  // a calibration of the built-in default
  return names;
}

int GpusNeeded(const v1::JobSpec& spec) {
  int gpus = 0;
  for (const v1::WorkloadSpec* w : JobWorkloads(spec))
    if (absl::StatusOr<DeviceName> device = ParseDeviceName(w->device()); device.ok() && device->cuda)
      gpus = std::max(gpus, device->index + 1);
  return gpus;
}

}  // namespace torchscan::spec
