// Writes the HTML page of every renderer fixture into a folder, for the browser test:
//   render_fixture_pages OUT_DIR
// One file per fixture, named after it (report_alone.html, failed_check.html, ...), the notebook
// view of the worst cases (outlier_comparison_notebook.html, ...), and the
// history pages (report/history_html.h) of fixture jobs: history.html (30 jobs) and
// hostile_history.html, whose points link to report pages written beside them in
// OUT_DIR/history_reports/<job id>.html, and history_large.html (10,000 jobs), whose points all
// link to one report page there (large_point.html).
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "report/history_html.h"
#include "report/html_renderer.h"
#include "report/notebook_renderer.h"
#include "tests/fixtures/evidence_fixtures.h"
#include "tests/fixtures/history_fixtures.h"
#include "tests/fixtures/worst_case_fixtures.h"

namespace {

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (out.flush()) return true;
  std::fprintf(stderr, "render_fixture_pages: cannot write %s\n", path.c_str());
  return false;
}

// The history pages and the report pages their points link to.
bool WriteHistoryPages(const std::string& dir) {
  namespace f = torchscan::fixtures;
  using torchscan::report::HistoryView;
  const std::string reports = dir + "/history_reports";
  if (mkdir(reports.c_str(), 0755) != 0) {
    std::fprintf(stderr, "render_fixture_pages: cannot create %s\n", reports.c_str());
    return false;
  }
  const torchscan::report::HtmlRenderer renderer;
  const std::string report_page = renderer.Render(f::ReportAlone());
  HistoryView small{"resnet18-cpu", "unix:/run/torchscan.sock", f::SyntheticHistory(30), {}};
  small.report_href = [](const torchscan::v1::Job& job) { return "history_reports/" + job.id() + ".html"; };
  HistoryView hostile = small;
  hostile.name = "<script>alert(1)</script>";
  hostile.jobs[0].mutable_spec()->set_revision("\"><script>alert(2)</script>");
  hostile.jobs[1].mutable_summary()->set_model("<img src=http://192.0.2.1/x.png>");
  for (const torchscan::v1::Job& job : small.jobs)
    if (job.has_summary() && !WriteFile(reports + "/" + job.id() + ".html", report_page)) return false;
  HistoryView large{"resnet18-cpu", "unix:/run/torchscan.sock", f::SyntheticHistory(10000), {}};
  large.report_href = [](const torchscan::v1::Job&) { return std::string("history_reports/large_point.html"); };
  return WriteFile(reports + "/large_point.html", report_page) &&
         WriteFile(dir + "/history.html", torchscan::report::RenderHistoryHtml(small)) &&
         WriteFile(dir + "/hostile_history.html", torchscan::report::RenderHistoryHtml(hostile)) &&
         WriteFile(dir + "/history_large.html", torchscan::report::RenderHistoryHtml(large));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: render_fixture_pages OUT_DIR\n");
    return 2;
  }
  namespace f = torchscan::fixtures;
  // A comparison as torchscand stores it: with the job's own timeline (job_timeline) as well.
  torchscan::v1::Comparison daemon_job = f::PassedComparison();
  *daemon_job.mutable_job_timeline() = f::SpansTimeline({{"queue wait", 0, 0.5},
                                                         {"worker start", 0.5, 0.625},
                                                         {"LibTorch load", 0.625, 1.5},
                                                         {"build baseline", 1.5, 1.75},
                                                         {"timing baseline", 1.75, 2.25},
                                                         {"check", 2.25, 2.5},
                                                         {"write result", 2.5, 2.75}});
  daemon_job.mutable_job_timeline()->set_started_at("2024-05-02T10:00:29.000Z");
  const std::vector<std::pair<std::string, torchscan::report::Evidence>> pages = {
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
      {"outlier_comparison", f::OutlierComparison()},
      {"build_pairs_comparison", f::BuildPairsComparison()},
  };
  const torchscan::report::HtmlRenderer renderer;
  for (const auto& [name, evidence] : pages) {
    if (!WriteFile(std::string(argv[1]) + "/" + name + ".html", renderer.Render(evidence))) return 1;
  }
  // The notebook view (Python's _repr_html_) of the worst cases, in a page of its own as a
  // notebook shows it: a fragment inside someone else's page.
  const torchscan::report::NotebookRenderer notebook;
  for (const auto& [name, evidence] : pages) {
    if (name != "outlier_comparison" && name != "build_pairs_comparison" && name != "report_alone") continue;
    const std::string page =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>notebook: " + name +
        "</title></head><body style=\"margin:0 24px;font-family:serif\">" + notebook.Render(evidence) +
        "</body></html>\n";
    if (!WriteFile(std::string(argv[1]) + "/" + name + "_notebook.html", page)) return 1;
  }
  return WriteHistoryPages(argv[1]) ? 0 : 1;
}
