// One interface for every way TorchScan shows its evidence (google/benchmark's
// include/benchmark/reporter.h is the model): an HTML page, a terminal summary, Markdown for
// pull requests, and exports for other tools. report/render_by_format.h picks one by name.
//
// Contract of every implementation:
//  - Render accepts a BenchmarkReport or a Comparison, loaded from JSON or just computed, and
//    never fails: absent parts are shown as absent, non-finite numbers by name.
//  - Nothing is measured, rerun or re-decided: a comparison's saved output check, label and
//    deltas are shown as saved. When the check failed or the runs are not comparable, no
//    delta, ratio, relative change or speed label is shown, whatever the file holds, and the
//    renderer never computes one itself (see report/evidence_view.h).
//  - Every string from the evidence is escaped for the output format.
//  - Accepts says whether the format can represent the evidence honestly. Formats that can
//    always render keep the default (OK). A format that would let another tool compute what
//    the comparison withholds (Google Benchmark JSON hands both runs' blocks to compare.py,
//    which prints deltas and a U test) returns FailedPrecondition saying why, and callers
//    that render by format (torchscan-client render, ...) check it first and show the
//    message instead of the output. Render of refused evidence still returns, and leaves out
//    what it cannot represent honestly.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "report/report_json.h"

namespace torchscan::report {

class Renderer {
 public:
  virtual ~Renderer() = default;

  // The whole output (a file's contents, or lines for a terminal).
  virtual std::string Render(const Evidence& evidence) const = 0;

  // OK, or FailedPrecondition naming why this format cannot show `evidence` honestly.
  virtual absl::Status Accepts(const Evidence&) const { return absl::OkStatus(); }

  // The name RenderByFormat accepts ("html") and the usual file extension ("html").
  virtual std::string_view format() const = 0;
  virtual std::string_view file_extension() const = 0;
};

}  // namespace torchscan::report
