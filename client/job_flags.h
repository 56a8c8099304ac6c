// Command-line flags that describe a job, and their translation into a JobSpec. No gRPC,
// no LibTorch. Every error is InvalidArgument naming the flag (or the job file's field)
// and the accepted values. Inputs and metadata: client/input_flags.h.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/input_flags.h"
#include "proto/service.pb.h"
#include "proto/spec_limits.h"

namespace CLI {
class App;
}

namespace torchscan {

// What each run measures and how (MeasurementOptions).
// `calibrate --node all`: one calibrate job per node of a Slurm front's partition.
inline constexpr char kAllNodes[] = "all";

struct RunFlags {
  int threads = kDefaultIntraOpThreads;       // --threads: intra-op threads, set before construction
  double min_run_time = kDefaultMinRunTimeS;  // --min-run-time: seconds of timed work per run
  bool rss = false;                           // --rss: fresh-child peak RSS per run
  bool instructions = false;                  // --instructions: callgrind instruction counts per run
  std::string label;                          // --label: free text shown in listings
  std::string revision;                       // --revision: the source revision measured ("" when not given)
  std::string node;                           // --node: a Slurm front's node to run on ("" = Slurm's choice)
};

// The model and what it is fed: shared by both sides of a comparison.
struct ModelFlags {
  std::string model;                  // --model: a built-in's name ("" with no file: the default, linear)
  std::string torchscript;            // --torchscript FILE: a saved TorchScript module
  std::string method;                 // --method: the module's method (default forward)
  std::string device = "cpu";         // --device: cpu | cuda:N
  std::vector<InputFlag> inputs;      // --input / --input-file, in command-line order
  std::vector<std::string> metadata;  // --metadata KEY=VALUE
  double work_units = 0;              // --work-units: TorchScript work per call (default dim 0 of input 0)
  std::string work_unit;              // --work-unit: e.g. images (default samples)
  // --daemon-path: every file of the command (modules, check module, tensor files, a job
  // file's paths) goes as its absolute path, for the daemon's machine to read, instead of
  // its bytes (default false: uploaded; client/job_files.h).
  bool daemon_path = false;

  FileTransport transport() const { return daemon_path ? FileTransport::kDaemonPath : FileTransport::kUpload; }
};

// How one side runs the model: the changes a comparison can make to its candidate.
struct VariantFlags {
  std::string mode = "batch";           // execution mode: batch | per_sample
  std::string dtype = "float32";        // precision: float32 | bfloat16 | float16
  std::string method;                   // "": ModelFlags::method
  bool freeze = false;                  // TorchScript only: torch::jit::freeze
  bool optimize_for_inference = false;  // TorchScript only (freezes as well)
  bool channels_last = false;           // 4-D weights and inputs in channels-last layout
};

struct MeasureFlags {
  ModelFlags model;
  RunFlags run;
  VariantFlags variant;  // --execution-mode, --dtype, --freeze, --optimize-for-inference, --channels-last
};

// The output check of a comparison: exactly one of rtol+atol, a check module, or none.
// TorchScan does not choose a tolerance, so nothing here has a default one.
struct CheckFlags {
  double rtol = std::numeric_limits<double>::quiet_NaN();  // --rtol (NaN: not given)
  double atol = std::numeric_limits<double>::quiet_NaN();  // --atol (NaN: not given)
  std::string check_dtype;                                 // --check-dtype: cast both outputs first (float32 ...)
  bool allow_non_finite = false;  // --allow-non-finite: NaN/Inf outputs do not fail by themselves
  std::string check_module;       // --check-module FILE: a TorchScript check module instead
  bool no_check = false;          // --no-check: output_check not_provided
};

struct CompareFlags {
  ModelFlags model;
  RunFlags run;
  std::string baseline_file;   // --baseline FILE: the baseline's TorchScript module
  std::string candidate_file;  // --candidate FILE: the candidate's (with --baseline)
  VariantFlags baseline;       // --baseline-mode
  VariantFlags candidate;      // --candidate-mode, -dtype, -method, -freeze, -optimize-for-inference, -channels-last
  CheckFlags check;
  bool reverse = false;         // --reverse: time the candidate first
  int rounds = kDefaultRounds;  // --rounds: alternating timing rounds (1..kMaxRounds)
  // --smallest-change: the smallest relative change that matters (0 < x <= kMaxSmallestChange)
  double smallest_change = kDefaultSmallestChange;
  double max_time = kDefaultCompareMaxTimeS;  // --max-time: seconds the timing may take (0 < x <= kMaxCompareMaxTimeS)
  // --max-other-cpu-share: build pairs timed while others used more of the job's CPUs are
  // discarded (kMinMaxOtherCpuShare <= x <= 1)
  double max_other_cpu_share = kDefaultMaxOtherCpuShare;
  bool fixed_length = false;  // --fixed-length: the planned rounds only
};

// A calibration: A/A pairs of one workload (the built-in linear model by default, or the
// user's own module with the measure flags) at the run flags' settings.
struct CalibrateFlags {
  MeasureFlags measure;                  // the workload and --threads, --min-run-time, --label (--rss is not offered)
  int pairs = kDefaultCalibrationPairs;  // --pairs: A/A comparisons (1..kMaxCalibrationPairs)
  int rounds = 0;                        // --rounds: timing rounds of each pair; 0 (not given): the compare default
};

// The guide's benchmark_comparison: per-sample baseline, batched candidate, and the guide's
// own tolerance (rtol 1e-4, atol 1e-5) stated explicitly in the job.
CompareFlags GuideExampleFlags();

// Registers the flags on `app` (the guide's example uses AddExampleFlags: a subset).
void AddMeasureFlags(CLI::App* app, MeasureFlags* flags);
void AddCompareFlags(CLI::App* app, CompareFlags* flags);
void AddExampleFlags(CLI::App* app, CompareFlags* flags);
void AddCalibrateFlags(CLI::App* app, CalibrateFlags* flags);

// `--help` text of measure and compare: a worked example for a user's own model.
extern const char* const kMeasureExamples;
extern const char* const kCompareExamples;

absl::StatusOr<v1::JobSpec> MeasureSpecFromFlags(const MeasureFlags& flags);
// --rounds: OK for 1..kMaxRounds, else InvalidArgument "--rounds: must be 1..<kMaxRounds>, got N".
absl::Status ValidateRoundsFlag(int rounds);
// Also refuses a comparison without its check, naming "--rtol/--atol", and the three choices.
absl::StatusOr<v1::JobSpec> CompareSpecFromFlags(const CompareFlags& flags);
// A calibrate job: the measure flags' workload and run settings, --pairs and --rounds.
// InvalidArgument "--pairs: must be 1..<kMaxCalibrationPairs>, got N", --rounds as
// ValidateRoundsFlag (0: not given), and MeasureSpecFromFlags' errors.
absl::StatusOr<v1::JobSpec> CalibrateSpecFromFlags(const CalibrateFlags& flags);

// A JobSpec from a JSON job file (the schema's JSON mapping, strict): InvalidArgument
// naming the file and the field; NotFound for a missing file. Zeros are read as +0
// (io/proto_json.h); a control character in any text field is refused naming the field
// ("job.json: spec.label: holds control character U+0000 ...", the field named as the
// daemon names it; spec/printable_text.h). The files it names are left as written.
absl::StatusOr<v1::JobSpec> LoadJobFile(const std::string& path);

// LoadJobFile, then the files the job names as `transport` wants them: read and sent with
// the job, or sent as absolute paths for the daemon's machine, relative paths taken from the
// job file's folder (ResolveJobFiles, client/job_files.h). What `measure/compare --job` runs.
absl::StatusOr<v1::JobSpec> LoadJobFileWithFiles(const std::string& path, FileTransport transport);

}  // namespace torchscan
