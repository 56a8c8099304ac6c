#include "report/notebook_renderer.h"

#include "absl/strings/str_cat.h"
#include "report/evidence_view.h"
#include "report/html_page.h"
#include "report/html_run_sections.h"
#include "report/html_summary.h"

namespace torchscan::report {

std::string NotebookRenderer::Render(const Evidence& evidence) const {
  const std::vector<RunView> runs = Runs(evidence);
  const v1::Comparison* c = ComparisonOf(evidence);
  std::string out;
  out.reserve(48 * 1024);
  absl::StrAppend(&out, "<div class=\"", kNotebookRootClass, "\"><style>", HtmlStyleScopedTo(kNotebookRootClass), ".",
                  kNotebookRootClass, "{background:transparent;padding:8px 0;max-width:1180px}</style>");
  AppendSummary(evidence, runs, &out);
  out.append("<section><h2>Timing</h2>");
  AppendTimingFigure(runs, &out);
  out.append("</section>");
  if (c) {
    out.append("<section><h2>Deltas (after - before)</h2>");
    AppendDeltasTable(*c, &out);
    const v1::PairedEvidence& paired = c->evidence().paired();
    if (WithheldBecause(*c) == Withheld::kNone && !paired.round_ratios().empty()) AppendPairedRounds(paired, &out);
    out.append("</section>");
  }
  absl::StrAppend(&out,
                  "<p class=\"muted\">The full report (statistics, profile and FLOPs, memory, settings, "
                  "raw blocks, phase timeline): <code>r.save(folder)</code> writes it as ",
                  c ? "comparison.html" : "report.html", ".</p></div>\n");
  return out;
}

}  // namespace torchscan::report
