// Command-line flags that describe a job, and their translation into a JobSpec. No gRPC,
// no LibTorch. Every error is InvalidArgument naming the flag (or the job file's field)
// and the accepted values.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "proto/service.pb.h"

namespace CLI {
class App;
}

namespace torchscan {

// What each run measures and how (MeasurementOptions).
struct RunFlags {
  int threads = 1;                  // --threads: intra-op threads, set before construction
  double min_run_time = 0.2;        // --min-run-time: seconds of timed work per run
  bool rss = false;                 // --rss: fresh-child peak RSS per run
  std::string label;                // --label: free text shown in listings
};

// The workload(s): a built-in or a TorchScript file (sent to the daemon as bytes).
struct ModelFlags {
  std::string model = "linear";     // --model: linear | resnet18 | bert
  std::string torchscript;          // --torchscript FILE: a saved TorchScript module instead
  std::string method;               // --method: the module's method (default forward)
  std::string device = "cpu";       // --device: cpu | cuda:N
};

struct MeasureFlags {
  ModelFlags model;
  RunFlags run;
  std::string execution_mode = "batch";  // --execution-mode: batch | per_sample
  std::string dtype = "float32";         // --dtype: float32 | bfloat16 | float16
};

struct CompareFlags {
  ModelFlags model;
  RunFlags run;
  std::string baseline_mode = "per_sample";  // --baseline-mode
  std::string candidate_mode = "batch";      // --candidate-mode
  std::string candidate_dtype = "float32";   // --candidate-dtype
  double rtol = 1e-4;               // --rtol
  double atol = 1e-5;               // --atol
  bool no_check = false;            // --no-check: output_check not_provided
  std::string check_module;         // --check-module FILE: a TorchScript check module instead of rtol/atol
  bool reverse = false;             // --reverse: time the candidate first
  int rounds = 1;                   // --rounds: alternating timing rounds (1..100)
};

// Registers the flags on `app` (the guide's example uses AddExampleFlags: a subset).
void AddModelFlags(CLI::App* app, ModelFlags* flags);
void AddRunFlags(CLI::App* app, RunFlags* flags);
void AddMeasureFlags(CLI::App* app, MeasureFlags* flags);
void AddCompareFlags(CLI::App* app, CompareFlags* flags);
void AddExampleFlags(CLI::App* app, CompareFlags* flags);

absl::StatusOr<v1::JobSpec> MeasureSpecFromFlags(const MeasureFlags& flags);
absl::StatusOr<v1::JobSpec> CompareSpecFromFlags(const CompareFlags& flags);

// A JobSpec from a JSON job file (the schema's JSON mapping, strict): InvalidArgument
// naming the file and the field; NotFound for a missing file. Zeros are read as +0
// (report/json_io.h); a control character in any text field is refused naming the field
// ("job.json: spec.label: holds control character U+0000 ...", the field named as the
// daemon names it; report/printable_text.h).
absl::StatusOr<v1::JobSpec> LoadJobFile(const std::string& path);

}  // namespace torchscan
