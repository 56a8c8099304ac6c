// Flags of the guide's benchmark_comparison example and their translation into the
// experiment's specs and options. No LibTorch, no gRPC.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "core/experiment.h"
#include "proto/workload.pb.h"

namespace torchscan {

struct ExampleFlags {
  std::string model = "linear";     // linear | resnet18 | bert
  std::string device = "cpu";       // cpu | cuda:N
  int threads = 1;                  // intra-op threads, set before construction
  double min_run_time = 0.2;        // seconds of timed work per run
  bool rss = false;                 // fresh-child peak RSS per run
  bool reverse = false;             // time the candidate first
  std::string output;               // folder for comparison.json (required)
  std::string rss_child;            // path of torchscan_rss_child (set by the script)
};

struct ExamplePlan {
  v1::WorkloadSpec baseline;        // per-sample forwards, outputs stacked
  v1::WorkloadSpec candidate;       // one batch forward on identical inputs
  ExperimentOptions options;
};

// Validates the flags (InvalidArgument naming the flag and the accepted values) and builds
// the plan: both specs share model, seed 0, float32 and device; only execution mode differs.
absl::StatusOr<ExamplePlan> PlanExample(const ExampleFlags& flags);

}  // namespace torchscan
