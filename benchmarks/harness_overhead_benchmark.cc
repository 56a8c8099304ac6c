// Harness overhead: TorchScan's reported per-call time against a bare hand-written timing
// loop over the same callable, measured side by side in one run (alternating rounds, so
// drift and background load hit both). Prints ratios; it is a benchmark, not a test.
//
//   bazel run //benchmarks:harness_overhead_benchmark [-- ROUNDS] [--quick]
//
// --quick: 1 round of 0.01 s each, to check that it runs (//tests:readme_benchmarks_test).
//
// Targets (issue 2): within 2 % for the Linear(128,128) batch forward on 32x128, and a
// few nanoseconds per call for an empty callable.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <vector>

#include <torch/torch.h>

#include "benchmarks/benchmark_args.h"
#include "core/latency_runner.h"
#include "core/statistics.h"
#include "workloads/thread_settings.h"

namespace {

using torchscan::LatencyOptions;

// The bare loop: blocks of `calls` calls timed with steady_clock until `min_time` passes.
double BareMedianPerCall(const std::function<void()>& call, int64_t calls, double min_time) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> per_call;
  double total = 0;
  while (total < min_time || per_call.size() < 10) {
    const auto start = Clock::now();
    for (int64_t i = 0; i < calls; ++i) call();
    const double d = std::chrono::duration<double>(Clock::now() - start).count();
    total += d;
    per_call.push_back(d / static_cast<double>(calls));
  }
  return *torchscan::Quantile(per_call, 0.5);
}

struct Pair {
  double harness = 0, bare = 0;
};

Pair MeasurePair(const std::function<void()>& call, double min_time) {
  LatencyOptions options;
  options.min_run_time_s = min_time;
  const auto report = torchscan::MeasureLatency(call, options);
  if (!report.ok()) {
    std::fprintf(stderr, "%s\n", report.status().ToString().c_str());
    std::exit(1);
  }
  Pair p;
  p.harness = report->timing().summary().median_s();
  p.bare = BareMedianPerCall(call, report->timing().calls_per_block(), min_time);
  return p;
}

void Report(const char* name, const std::function<void()>& call, int rounds, double min_time) {
  std::vector<double> harness, bare;
  for (int r = 0; r < rounds; ++r) {
    const Pair p = MeasurePair(call, min_time);
    harness.push_back(p.harness);
    bare.push_back(p.bare);
  }
  const double h = *torchscan::Quantile(harness, 0.5), b = *torchscan::Quantile(bare, 0.5);
  std::printf("%-28s harness %10.3f ns/call   bare loop %10.3f ns/call   ratio %.4f   difference %+.3f ns\n", name,
              h * 1e9, b * 1e9, h / b, (h - b) * 1e9);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = torchscan::benchmarks::TakeQuickFlag(&argc, argv);
  const std::optional<int> given = argc > 1 ? torchscan::benchmarks::PositiveInt(argv[1]) : 7;
  if (argc > 2 || !given) {
    std::fprintf(stderr, "usage: harness_overhead_benchmark [ROUNDS >= 1, default 7] [--quick]\n");
    return 2;
  }
  const int rounds = quick ? 1 : *given;
  const double min_time = quick ? 0.01 : 0.2;
  if (!torchscan::workloads::ApplyThreadSettings(1, 0).ok()) return 1;
  std::printf("median of %d alternating rounds, %g s of timed work each, 1 intra-op thread\n", rounds, min_time);
  Report(
      "empty callable", [] {}, rounds, min_time);

  torch::manual_seed(0);
  torch::nn::Linear model(128, 128);
  model->eval();
  const torch::Tensor inputs = torch::randn({32, 128});
  torch::InferenceMode guard;
  Report(
      "Linear(128,128) on 32x128", [&] { model(inputs); }, rounds, min_time);
  return 0;
}
