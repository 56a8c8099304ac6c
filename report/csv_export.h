// CSV of the raw timing blocks (RFC 4180, "\n" line ends), one row per block in measurement
// order, before's blocks then after's for a comparison:
//
//   run,block,calls,duration_s,per_call_s,output_check,compatibility,mismatches,round
//   baseline,1,1000,0.211,0.000211,passed,compatible,,1
//
// run: ExportNames() of report/evidence_view.h (the report's name, made unique within a
// comparison); block: 1-based position; duration_s and per_call_s (= duration_s / calls)
// in seconds as the shortest decimal that reads back to the same double, "NaN"/"Infinity"
// for non-finite values, and per_call_s empty when calls <= 0. Names are quoted when needed
// and never altered (a spreadsheet may treat a leading '=' as a formula: import as text).
//
// The last three columns carry the comparison's verdict rules on every row, so that a row
// read alone still says whether its run may be compared with the other:
//   output_check: "passed", "failed" or "not provided" (the saved check status, as saved);
//   compatibility: compatible or "not comparable";
//   mismatches: the mismatched fields joined by "; " (e.g. "environment.cpu_model;
//     environment.libtorch_version"), empty when compatible.
// When the check failed or the runs are not comparable TorchScan withholds every delta and
// the label; the raw blocks stay (they are each run's own evidence), and these columns say
// so. A plain report has no comparison: the three columns are "n/a".
// round: the block's timing round (Timing.rounds, 1-based) when its run was timed in
// alternating rounds; empty for a single pass.
#pragma once

#include "report/renderer.h"

namespace torchscan::report {

class CsvExporter : public Renderer {
 public:
  std::string Render(const Evidence& evidence) const override;
  std::string_view format() const override { return "csv"; }
  std::string_view file_extension() const override { return "csv"; }
};

}  // namespace torchscan::report
