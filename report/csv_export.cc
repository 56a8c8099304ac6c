#include "report/csv_export.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/evidence_view.h"
#include "report/verdict_sentence.h"

namespace torchscan::report {
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

// The 1-based timing round of each of `t`'s blocks, 0 for a single pass.
std::vector<int> BlockRounds(const v1::Timing& t) {
  std::vector<int> rounds(t.blocks_size(), 0);
  for (const v1::TimingRound& r : t.rounds())
    for (int64_t i = r.first_block(); i < r.first_block() + r.block_count() && i < t.blocks_size(); ++i)
      if (i >= 0) rounds[i] = r.round();
  return rounds;
}

}  // namespace

std::string CsvExporter::Render(const Evidence& evidence) const {
  const std::vector<RunView> runs = Runs(evidence);
  const std::vector<std::string> names = ExportNames(evidence);
  const std::string verdict = VerdictColumns(evidence);
  const v1::Comparison* c = ComparisonOf(evidence);
  const std::string summary = c == nullptr ? "n/a" : CsvField(VerdictSentence(*c));
  std::string out = "run,block,calls,duration_s,per_call_s,output_check,compatibility,mismatches,round,summary\n";
  for (size_t r = 0; r < runs.size(); ++r) {
    const std::string name = CsvField(names[r]);
    const v1::Timing& t = runs[r].report->timing();
    const std::vector<int> rounds = BlockRounds(t);
    for (int i = 0; i < t.blocks_size(); ++i) {
      const v1::TimingBlock& b = t.blocks(i);
      absl::StrAppend(&out, name, ",", i + 1, ",", b.calls(), ",", ShortestDouble(b.duration_s()), ",",
                      b.calls() > 0 ? ShortestDouble(PerCallSeconds(b)) : "", verdict, ",",
                      rounds[i] > 0 ? absl::StrCat(rounds[i]) : "", ",", summary, "\n");
    }
  }
  return out;
}

}  // namespace torchscan::report
