// What a benchmark's history page shows: the jobs of one name (JobSpec.label) as the History
// RPC gives them, and how the page links each job to its own report. The history renderers
// (report/history_text.h, report/history_html.h) read it; they never fetch or measure.
//
// Which jobs are points: a succeeded job with a `summary` (proto ResultSummary) whose
// latency median is finite and positive. Every other job (queued, running, failed,
// cancelled, interrupted, or succeeded without a summary, e.g. a calibration) is listed in
// both renderers' tables with its state and no figures, and counted in their headers, but not
// plotted.
// All strings in the jobs are user text (names, revisions, labels): the renderers escape them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "proto/service.pb.h"

namespace torchscan::report {

struct HistoryView {
  std::string name;           // the benchmark's name (the jobs' label)
  std::string source;         // where it came from, e.g. the daemon address; shown in the header
  std::vector<v1::Job> jobs;  // newest first, as the History RPC gives them; any state: only
                              // succeeded jobs with a summary become points, the others are
                              // listed in the tables and counted, but not plotted
  // Relative link from the page to a job's own report page ("" = no link for that job).
  // Empty function: no links at all.
  std::function<std::string(const v1::Job&)> report_href;
};

}  // namespace torchscan::report
