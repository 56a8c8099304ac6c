#include "report/csv_export.h"

#include "absl/strings/str_cat.h"
#include "report/evidence_view.h"
#include "report/format.h"

namespace torchscan {

std::string CsvExporter::Render(const Evidence& evidence) const {
  const std::vector<RunView> runs = Runs(evidence);
  const std::vector<std::string> names = ExportNames(evidence);
  std::string out = "run,block,calls,duration_s,per_call_s\n";
  for (size_t r = 0; r < runs.size(); ++r) {
    const std::string name = CsvField(names[r]);
    int64_t index = 0;
    for (const v1::TimingBlock& b : runs[r].report->timing().blocks())
      absl::StrAppend(&out, name, ",", ++index, ",", b.calls(), ",", ShortestDouble(b.duration_s()), ",",
                      b.calls() > 0 ? ShortestDouble(PerCallSeconds(b)) : "", "\n");
  }
  return out;
}

}  // namespace torchscan
