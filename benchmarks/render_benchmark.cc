// Times every renderer on a large comparison (default 10,000 blocks and 1,000 profiled
// operators per run) and prints the best of 5 render times and each output's size.
// Not a test: timings depend on the machine. Usage: render_benchmark [BLOCKS [OPERATORS]]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "report/render_by_format.h"
#include "tests/fixtures/evidence_fixtures.h"

int main(int argc, char** argv) {
  const int blocks = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int operators = argc > 2 ? std::atoi(argv[2]) : 1000;
  if (blocks < 1 || operators < 1) {
    std::fprintf(stderr, "usage: render_benchmark [BLOCKS >= 1 [OPERATORS >= 1]]\n");
    return 2;
  }
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
