#include "report/csv_export.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "report/evidence_view.h"
#include "report/format.h"

namespace torchscan {
namespace {

// ",output_check,compatibility,mismatches" values of every row (with the leading comma).
std::string VerdictColumns(const Evidence& evidence) {
  const v1::Comparison* c = ComparisonOf(evidence);
  if (c == nullptr) return ",n/a,n/a,n/a";
  std::vector<std::string> fields;
  for (const v1::Mismatch& m : c->compatibility().mismatches()) fields.push_back(m.field());
  return absl::StrCat(",", CheckStatusName(c->output_check().status()), ",",
                      c->compatibility().compatible() ? "compatible" : "not comparable", ",",
                      CsvField(absl::StrJoin(fields, "; ")));
}

}  // namespace

std::string CsvExporter::Render(const Evidence& evidence) const {
  const std::vector<RunView> runs = Runs(evidence);
  const std::vector<std::string> names = ExportNames(evidence);
  const std::string verdict = VerdictColumns(evidence);
  std::string out = "run,block,calls,duration_s,per_call_s,output_check,compatibility,mismatches\n";
  for (size_t r = 0; r < runs.size(); ++r) {
    const std::string name = CsvField(names[r]);
    int64_t index = 0;
    for (const v1::TimingBlock& b : runs[r].report->timing().blocks())
      absl::StrAppend(&out, name, ",", ++index, ",", b.calls(), ",", ShortestDouble(b.duration_s()), ",",
                      b.calls() > 0 ? ShortestDouble(PerCallSeconds(b)) : "", verdict, "\n");
  }
  return out;
}

}  // namespace torchscan
