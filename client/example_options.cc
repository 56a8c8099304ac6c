#include "client/example_options.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace torchscan {

absl::StatusOr<ExamplePlan> PlanExample(const ExampleFlags& f) {
  v1::ModelSpec::Builtin builtin;
  if (!v1::ModelSpec::Builtin_Parse(f.model, &builtin) || builtin == v1::ModelSpec::builtin_unspecified)
    return absl::InvalidArgumentError(absl::StrFormat("--model: \"%s\" is not a built-in; use linear, resnet18 or bert", f.model));
  if (f.threads < 1 || f.threads > 4096)
    return absl::InvalidArgumentError(absl::StrFormat("--threads: must be 1..4096, got %d", f.threads));
  if (!(f.min_run_time > 0) || !std::isfinite(f.min_run_time) || f.min_run_time > 3600)
    return absl::InvalidArgumentError(absl::StrFormat("--min-run-time: must be a number of seconds in (0, 3600], got %g", f.min_run_time));
  if (f.output.empty())
    return absl::InvalidArgumentError("--output: required; name a folder outside the checkout, e.g. /tmp/torchscan-cpu");
  if (f.rss && f.rss_child.empty())
    return absl::InvalidArgumentError("--rss-child: required with --rss (scripts/benchmark_comparison.sh sets it)");

  ExamplePlan plan;
  plan.baseline.mutable_model()->set_builtin(builtin);
  plan.baseline.set_device(f.device);
  plan.baseline.set_seed(0);
  plan.candidate = plan.baseline;
  plan.baseline.set_execution_mode(v1::WorkloadSpec::per_sample);
  plan.candidate.set_execution_mode(v1::WorkloadSpec::batch);

  ExperimentOptions& o = plan.options;
  o.timing.min_run_time_s = f.min_run_time;
  o.intra_op_threads = f.threads;
  o.reverse = f.reverse;
  o.rss = f.rss;
  o.rss_child_path = f.rss_child;
  return plan;
}

}  // namespace torchscan
