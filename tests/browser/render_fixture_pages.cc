// Writes the HTML page of every renderer fixture into a folder, for the browser test:
//   render_fixture_pages OUT_DIR
// One file per fixture, named after it (report_alone.html, failed_check.html, ...).
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "report/html_renderer.h"
#include "tests/fixtures/evidence_fixtures.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: render_fixture_pages OUT_DIR\n");
    return 2;
  }
  namespace f = torchscan::fixtures;
  // A comparison as torchscand stores it: with the job's own timeline (job_timeline) as well.
  torchscan::v1::Comparison daemon_job = f::PassedComparison();
  *daemon_job.mutable_job_timeline() =
      f::SpansTimeline({{"queue wait", 0, 0.5}, {"worker start", 0.5, 0.625}, {"LibTorch load", 0.625, 1.5},
                        {"build baseline", 1.5, 1.75}, {"timing baseline", 1.75, 2.25}, {"check", 2.25, 2.5},
                        {"write result", 2.5, 2.75}});
  daemon_job.mutable_job_timeline()->set_started_at("2024-05-02T10:00:29.000Z");
  const std::vector<std::pair<std::string, torchscan::Evidence>> pages = {
      {"report_alone", f::ReportAlone()},
      {"passed_comparison", f::PassedComparison()},
      {"daemon_job", daemon_job},
      {"failed_check", f::FailedCheckComparison()},
      {"incompatible", f::IncompatibleComparison()},
      {"unknown_deltas", f::UnknownDeltasComparison()},
      {"incomplete_flops", f::IncompleteFlopsReport()},
      {"hostile_report", f::HostileReport()},
      {"hostile_comparison", f::HostileComparison()},
      {"large_comparison", f::LargeComparison(10000, 1000)},
  };
  const torchscan::HtmlRenderer renderer;
  for (const auto& [name, evidence] : pages) {
    const std::string path = std::string(argv[1]) + "/" + name + ".html";
    std::ofstream out(path, std::ios::binary);
    out << renderer.Render(evidence);
    if (!out.flush()) {
      std::fprintf(stderr, "render_fixture_pages: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  return 0;
}
