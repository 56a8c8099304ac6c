// Times every renderer on a large comparison (default 10,000 blocks and 1,000 profiled
// operators per run) and prints the best of 5 render times and each output's size, and the
// notebook view's size beside the full page's against the 150 KB target; then the
// history renderers (issue 16) on a benchmark's history (default 10,000 jobs, 9,000 of them
// points), the median of 5 renders each against the 0.5 s target.
// Not a test: timings depend on the machine.
// Usage: render_benchmark [BLOCKS [OPERATORS [HISTORY_JOBS]]] [--quick]
// --quick: 100 blocks, 10 operators and 100 jobs, to check that it runs
// (//tests:readme_benchmarks_test).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "benchmarks/benchmark_args.h"
#include "report/history_html.h"
#include "report/history_text.h"
#include "report/render_by_format.h"
#include "tests/fixtures/evidence_fixtures.h"
#include "tests/fixtures/history_fixtures.h"

namespace {

constexpr double kHistoryTargetMs = 500;
constexpr double kNotebookTargetKb = 150;  // issue 44: a notebook must not grow by a megabyte per result

// The median of 5 runs of `render` in ms, and the size of its output.
std::pair<double, size_t> MedianRenderMs(const std::function<std::string()>& render) {
  std::vector<double> ms;
  size_t bytes = 0;
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    bytes = render().size();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[2], bytes};
}

void HistoryRenders(int jobs) {
  torchscan::report::HistoryView view;
  view.name = "resnet18-cpu";
  view.source = "unix:/run/torchscan.sock";
  view.jobs = torchscan::fixtures::SyntheticHistory(jobs);
  view.report_href = [](const torchscan::v1::Job& job) { return "reports/" + job.id() + ".html"; };
  std::printf("history: %d jobs (newest first, 9 in 10 are points)\n", jobs);
  const std::pair<std::string, std::function<std::string()>> renders[] = {
      {"html", [&] { return torchscan::report::RenderHistoryHtml(view); }},
      {"text", [&] { return torchscan::report::RenderHistoryText(view, true); }},
  };
  for (const auto& [name, render] : renders) {
    const auto [ms, bytes] = MedianRenderMs(render);
    std::printf("history %-5s %8.2f ms  %10zu bytes  (median of 5; target <= %.0f ms: %s)\n", name.c_str(), ms, bytes,
                kHistoryTargetMs, ms <= kHistoryTargetMs ? "met" : "MISSED");
  }
}

}  // namespace

int main(int argc, char** argv) {
  using torchscan::benchmarks::PositiveInt;
  const bool quick = torchscan::benchmarks::TakeQuickFlag(&argc, argv);
  const std::optional<int> blocks_given = argc > 1 ? PositiveInt(argv[1]) : 10000;
  const std::optional<int> operators_given = argc > 2 ? PositiveInt(argv[2]) : 1000;
  const std::optional<int> history_given = argc > 3 ? PositiveInt(argv[3]) : 10000;
  if (argc > 4 || !blocks_given || !operators_given || !history_given) {
    std::fprintf(stderr, "usage: render_benchmark [BLOCKS >= 1 [OPERATORS >= 1 [HISTORY_JOBS >= 1]]] [--quick]\n");
    return 2;
  }
  const int blocks = quick ? 100 : *blocks_given;
  const int operators = quick ? 10 : *operators_given;
  const torchscan::report::Evidence evidence = torchscan::fixtures::LargeComparison(blocks, operators);
  std::printf("comparison: %d blocks and %d operators per run\n", blocks, operators);
  std::map<std::string, size_t> sizes;
  for (const std::string& format : torchscan::report::RenderFormats()) {
    const auto renderer = torchscan::report::RenderByFormat(format);
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
    sizes[format] = bytes;
  }
  // What a notebook keeps per displayed result (Python's _repr_html_), beside the full page.
  std::printf("notebook view %.1f KB, %.3fx the html page's %.1f KB (target <= %.0f KB: %s)\n",
              static_cast<double>(sizes["notebook"]) / 1024, static_cast<double>(sizes["notebook"]) / sizes["html"],
              static_cast<double>(sizes["html"]) / 1024, kNotebookTargetKb,
              static_cast<double>(sizes["notebook"]) / 1024 <= kNotebookTargetKb ? "met" : "MISSED");
  HistoryRenders(quick ? 100 : *history_given);
  return 0;
}
