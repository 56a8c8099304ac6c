// Cost of each diagnostic pass as a ratio to the timing pass, for the built-in models, and
// the wall time of one RSS child for each. Measured side by side in one run; prints ratios.
//
//   bazel build //benchmarks:pass_cost_benchmark //passes:torchscan_rss_child
//   bazel-bin/benchmarks/pass_cost_benchmark bazel-bin/passes/torchscan_rss_child [THREADS] [--quick]
//
// --quick: 0.01 s of timing and 2 profiled calls per model, to check that it runs
// (//tests:readme_benchmarks_test); the RSS child still makes its calls.
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "benchmarks/benchmark_args.h"
#include "experiment/torch_measure.h"
#include "passes/operator_profile.h"
#include "passes/peak_memory.h"
#include "passes/peak_rss.h"
#include "proto/spec_limits.h"
#include "spec/builtin_models.h"
#include "workloads/thread_settings.h"
#include "workloads/workload.h"

namespace {

double WallSeconds(const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = torchscan::benchmarks::TakeQuickFlag(&argc, argv);
  const int profile_calls = quick ? 2 : torchscan::kDefaultProfileCalls;
  const std::optional<int> threads = argc > 2 ? torchscan::benchmarks::PositiveInt(argv[2]) : 1;
  if (argc < 2 || argc > 3 || !threads) {
    std::fprintf(stderr, "usage: %s RSS_CHILD [THREADS >= 1, default 1] [--quick]\n", argv[0]);
    return 2;
  }
  const std::string child = argv[1];
  if (!torchscan::workloads::ApplyThreadSettings(*threads, 0).ok()) return 2;
  std::printf("%-9s %12s %10s %10s %10s %12s %14s\n", "model", "timing s", "profile", "memory", "rss", "rss child s",
              "peak RSS MiB");
  for (const torchscan::spec::BuiltinModel& builtin : torchscan::spec::BuiltinModels()) {
    torchscan::v1::WorkloadSpec spec;
    spec.mutable_model()->set_builtin(builtin.id);
    auto workload = torchscan::workloads::BuildWorkload(spec);
    if (!workload.ok()) {
      std::fprintf(stderr, "%s\n", workload.status().ToString().c_str());
      return 1;
    }
    torchscan::experiment::TorchLatencyOptions options;
    options.timing.work_units = workload->work_units;
    options.timing.work_unit = workload->work_unit;
    if (quick) options.timing.min_run_time_s = 0.01;
    const double timing =
        WallSeconds([&] { (void)torchscan::experiment::MeasureTorchLatency([&] { workload->call(); }, options); });
    const double profile =
        WallSeconds([&] { (void)torchscan::passes::ProfileWorkload(workload->call, profile_calls); });
    const double memory = WallSeconds([&] {
      (void)torchscan::passes::MeasurePeakMemory(workload->call, *workload->device, workload->resident_tensors);
    });
    torchscan::passes::RssTrialInfo info;
    torchscan::v1::MetricResult rss;
    const double rss_wall = WallSeconds([&] { rss = torchscan::passes::MeasurePeakRss(spec, child, {}, &info); });
    std::printf("%-9s %12.3f %10.3f %10.3f %10.3f %12.3f %14.1f\n", builtin.name.c_str(), timing, profile / timing,
                memory / timing, rss_wall / timing, info.wall_s, rss.has_value() ? rss.value() / (1 << 20) : -1.0);
  }
  std::printf(
      "profile/memory/rss: wall time of the pass divided by the timing pass's wall time "
      "(timing: min_run_time %g s, profile: %d observed calls, rss: a fresh child with %d calls)\n",
      quick ? 0.01 : torchscan::kDefaultMinRunTimeS, profile_calls, torchscan::kRssChildCalls);
  return 0;
}
