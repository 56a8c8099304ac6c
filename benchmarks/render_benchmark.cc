// Times every renderer on a large comparison (default 10,000 blocks and 1,000 profiled
// operators per run) and prints the best of 5 render times and each output's size.
// Not a test: timings depend on the machine. Usage: render_benchmark [BLOCKS [OPERATORS]] [--quick]
// --quick: 100 blocks and 10 operators, to check that it runs (//tests:readme_benchmarks_test).
#include <chrono>
#include <cstdio>
#include <optional>

#include "benchmarks/benchmark_args.h"
#include "report/render_by_format.h"
#include "tests/fixtures/evidence_fixtures.h"

int main(int argc, char** argv) {
  using torchscan::benchmarks::PositiveInt;
  const bool quick = torchscan::benchmarks::TakeQuickFlag(&argc, argv);
  const std::optional<int> blocks_given = argc > 1 ? PositiveInt(argv[1]) : 10000;
  const std::optional<int> operators_given = argc > 2 ? PositiveInt(argv[2]) : 1000;
  if (argc > 3 || !blocks_given || !operators_given) {
    std::fprintf(stderr, "usage: render_benchmark [BLOCKS >= 1 [OPERATORS >= 1]] [--quick]\n");
    return 2;
  }
  const int blocks = quick ? 100 : *blocks_given;
  const int operators = quick ? 10 : *operators_given;
  const torchscan::Evidence evidence = torchscan::fixtures::LargeComparison(blocks, operators);
  std::printf("comparison: %d blocks and %d operators per run\n", blocks, operators);
  for (const std::string& format : torchscan::RenderFormats()) {
    const auto renderer = torchscan::RenderByFormat(format);
    if (const absl::Status accepts = (*renderer)->Accepts(evidence); !accepts.ok()) {
      std::printf("%-9s refused: %s\n", format.c_str(), std::string(accepts.message()).c_str());
      continue;
    }
    double best_ms = 1e300;
    size_t bytes = 0;
    for (int i = 0; i < 5; ++i) {
      const auto start = std::chrono::steady_clock::now();
      const std::string out = (*renderer)->Render(evidence);
      const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
      best_ms = std::min(best_ms, took.count());
      bytes = out.size();
    }
    std::printf("%-9s %8.2f ms  %10zu bytes\n", format.c_str(), best_ms, bytes);
  }
  return 0;
}
