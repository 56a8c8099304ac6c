// The guide's benchmark_comparison example, in-process: per-sample baseline versus batch
// candidate, timing before diagnostics, output check outside timing, comparison.json in
// --output and a short summary on stdout. Exit codes: 0 done (any label), 1 the output
// check failed, 2 bad flags, 3 the experiment could not run.
#include <sys/stat.h>

#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "client/example_options.h"
#include "core/experiment.h"
#include "report/json_io.h"

namespace {

int Fail(int code, const absl::Status& status) {
  std::cerr << "benchmark_comparison: " << status.message() << "\n";
  return code;
}

void PrintRun(const torchscan::v1::BenchmarkReport& r) {
  const auto& s = r.timing().summary();
  std::printf("  %-10s median %10.3f us  IQR %8.3f us  %10.1f %s  (%lld blocks of %lld calls)\n", r.name().c_str(),
              s.median_s() * 1e6, s.iqr_s() * 1e6, r.timing().throughput(), r.timing().throughput_unit().c_str(),
              static_cast<long long>(s.block_count()), static_cast<long long>(r.timing().calls_per_block()));
}

}  // namespace

int main(int argc, char** argv) {
  torchscan::ExampleFlags flags;
  CLI::App app{"TorchScan benchmark_comparison: one sample at a time versus one batch"};
  app.add_option("--model", flags.model, "linear | resnet18 | bert")->capture_default_str();
  app.add_option("--device", flags.device, "cpu or cuda:N")->capture_default_str();
  app.add_option("--threads", flags.threads, "intra-op threads, set before the model is built")->capture_default_str();
  app.add_option("--min-run-time", flags.min_run_time, "seconds of timed work per run")->capture_default_str();
  app.add_flag("--rss", flags.rss, "measure peak RSS in a fresh child process per run");
  app.add_flag("--reverse", flags.reverse, "time the candidate first (order effects)");
  app.add_option("--output", flags.output, "folder for comparison.json")->required();
  app.add_option("--rss-child", flags.rss_child, "path of torchscan_rss_child");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  absl::StatusOr<torchscan::ExamplePlan> plan = torchscan::PlanExample(flags);
  if (!plan.ok()) return Fail(2, plan.status());
  if (::mkdir(flags.output.c_str(), 0755) != 0 && errno != EEXIST)
    return Fail(2, absl::InvalidArgumentError("--output: cannot create folder " + flags.output + ": " + std::strerror(errno)));
  plan->options.on_phase = [](const std::string& phase) { std::cerr << "[torchscan] " << phase << "\n"; };

  absl::StatusOr<torchscan::v1::Comparison> comparison =
      torchscan::RunComparison(plan->baseline, plan->candidate, plan->options);
  if (!comparison.ok()) return Fail(3, comparison.status());
  const std::string json_path = flags.output + "/comparison.json";
  if (absl::Status s = torchscan::SaveJson(*comparison, json_path); !s.ok()) return Fail(3, s);

  std::printf("%s comparison on %s (%d thread%s)\n", flags.model.c_str(), flags.device.c_str(), flags.threads,
              flags.threads == 1 ? "" : "s");
  PrintRun(comparison->before());
  PrintRun(comparison->after());
  std::printf("  check      %s: %s\n",
              torchscan::v1::OutputCheck::Status_Name(comparison->output_check().status()).c_str(),
              comparison->output_check().message().c_str());
  std::printf("  latency    %s (%s)\n",
              torchscan::v1::Comparison::LatencyChange_Name(comparison->latency_change()).c_str(),
              comparison->latency_change_reason().c_str());
  std::printf("  wrote      %s\n", json_path.c_str());
  return comparison->output_check().status() == torchscan::v1::OutputCheck::failed ? 1 : 0;
}
