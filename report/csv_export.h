// CSV of the raw timing blocks (RFC 4180, "\n" line ends), one row per block in measurement
// order, before's blocks then after's for a comparison:
//
//   run,block,calls,duration_s,per_call_s
//   baseline,1,1000,0.211,0.000211
//
// run: ExportNames() of report/evidence_view.h (the report's name, made unique within a
// comparison); block: 1-based position; duration_s and per_call_s (= duration_s / calls)
// in seconds as the shortest decimal that reads back to the same double, "NaN"/"Infinity"
// for non-finite values, and per_call_s empty when calls <= 0. Names are quoted when needed
// and never altered (a spreadsheet may treat a leading '=' as a formula: import as text).
#pragma once

#include "report/renderer.h"

namespace torchscan {

class CsvExporter : public Renderer {
 public:
  std::string Render(const Evidence& evidence) const override;
  std::string_view format() const override { return "csv"; }
  std::string_view file_extension() const override { return "csv"; }
};

}  // namespace torchscan
