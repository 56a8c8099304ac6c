#include "report/html_instructions.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/instruction_diff.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/html_run_sections.h"
#include "report/instruction_text.h"

namespace torchscan::report {
namespace {

void DiffTable(const v1::InstructionDiff& d, std::string* out) {
  const std::vector<const v1::FunctionDelta*> rows = DiffRows(d, kInstructionDiffRows);
  if (rows.empty()) return;
  out->append(
      "<table id=\"instruction-diff\"><thead><tr><th>function or group (self instructions per call)</th>"
      "<th class=\"n\">before</th><th class=\"n\">after</th><th class=\"n\">change</th></tr></thead><tbody>");
  for (const v1::FunctionDelta* row : rows)
    absl::StrAppend(out, "<tr><td><code>", HtmlEscape(row->name()), "</code></td>", TdNum(FormatSi(row->before(), "")),
                    TdNum(FormatSi(row->after(), "")),
                    TdNum((row->delta() >= 0 ? "+" : "-") + FormatSi(std::abs(row->delta()), "")), "</tr>");
  out->append("</tbody></table>");
}

void RunCounts(const RunView& run, std::string* out) {
  const v1::InstructionCounts& c = run.report->instructions();
  absl::StrAppend(out, "<h3>", HtmlEscape(run.title), "</h3><p>", HtmlEscape(DescribeInstructionCounts(c)), "</p>");
  if (c.top_inclusive().empty()) return;
  out->append(
      "<table><thead><tr><th>function (largest inclusive counts below the loop)</th><th class=\"n\">inclusive</th>"
      "<th class=\"n\">self</th></tr></thead><tbody>");
  for (const v1::FunctionCount& f : c.top_inclusive())
    absl::StrAppend(out, "<tr><td><code>", HtmlEscape(f.name()), "</code></td>", TdNum(FormatSi(f.inclusive(), "")),
                    TdNum(FormatSi(f.self(), "")), "</tr>");
  out->append("</tbody></table>");
}

}  // namespace

void InstructionsSection(const std::vector<RunView>& runs, const v1::Comparison* c, std::string* out) {
  if (std::none_of(runs.begin(), runs.end(), [](const RunView& r) { return r.report->has_instructions(); })) return;
  out->append(
      "<section id=\"instructions\"><h2>Instructions per call (callgrind)</h2><p class=\"muted\">Counted under "
      "valgrind in a fresh child after timing; deterministic evidence beside the latency label and the paired "
      "claim, never deciding them.</p>");
  if (c != nullptr && HasInstructionDiff(*c)) {
    const bool known = c->instructions().known();
    absl::StrAppend(out, known ? "<p><strong>" : "<p class=\"withheld\">",
                    HtmlEscape(DescribeInstructionDiff(c->instructions())), known ? "</strong></p>" : "</p>");
    DiffTable(c->instructions(), out);
  }
  std::string limits;
  for (const RunView& run : runs) {
    if (!run.report->has_instructions()) continue;
    RunCounts(run, out);
    if (limits.empty()) limits = run.report->instructions().limits();
  }
  if (!limits.empty()) absl::StrAppend(out, "<p class=\"muted\">", HtmlEscape(limits), "</p>");
  out->append("</section>");
}

}  // namespace torchscan::report
