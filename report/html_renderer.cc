#include "report/html_renderer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/evidence_view.h"
#include "report/html_instructions.h"
#include "report/html_page.h"
#include "report/html_run_sections.h"
#include "report/html_summary.h"
#include "report/timeline_plot.h"

namespace torchscan::report {
namespace {

constexpr char kPValueMeaning[] =
    "how surprising block times this different would be if nothing had changed; with thousands of blocks a "
    "change far smaller than the runs' spread gets a tiny p, so it says a change exists, not that it matters: "
    "the sentence above and the label say that";

void DeltasSection(const v1::Comparison& c, std::string* out) {
  out->append("<section id=\"deltas\"><h2>Deltas (after - before)</h2>");
  AppendDeltasTable(c, out);
  if (WithheldBecause(c) != Withheld::kNone) {
    out->append("</section>");
    return;
  }
  const v1::LatencyEvidence& e = c.evidence();
  absl::StrAppend(out,
                  "<h3>Evidence (not used to choose the label)</h3><table class=\"numbers\"><tbody><tr><th>relative "
                  "change of medians</th>",
                  TdNum(e.has_relative_change() ? FormatPercent(e.relative_change()) : "unknown"),
                  "</tr><tr><th>the guide's rule for the label</th>", Td(c.latency_change_reason()),
                  "</tr><tr><th>Mann-Whitney U, two-sided p</th>",
                  TdNum(e.has_mann_whitney_p() ? FormatProbability(e.mann_whitney_p()) : "unknown"),
                  "</tr><tr><th>method</th>", Td(e.mann_whitney_note()), "</tr><tr><th>what p means</th>",
                  Td(kPValueMeaning), "</tr></tbody></table>");
  AppendPairedRounds(e.paired(), out);
  out->append("</section>");
}

void ChangesSection(const v1::Comparison& c, std::string* out) {
  out->append("<section id=\"changes\"><h2>Changed settings and compatibility</h2>");
  if (c.changed_settings().empty()) {
    out->append("<p>No settings changed between the runs.</p>");
  } else {
    out->append("<table><thead><tr><th>setting</th><th>before</th><th>after</th></tr></thead><tbody>");
    for (const v1::SettingChange& s : c.changed_settings())
      absl::StrAppend(out, "<tr><td><code>", HtmlEscape(s.name()), "</code></td>", Td(s.before()), Td(s.after()),
                      "</tr>");
    out->append("</tbody></table>");
  }
  if (c.compatibility().mismatches().empty()) {
    absl::StrAppend(out, "<p>", c.compatibility().compatible() ? "Compatible" : "Not comparable",
                    ": no mismatch of hardware, versions, input metadata or work units is recorded.</p>");
  } else {
    out->append(
        "<h3>Compatibility "
        "mismatches</h3><table><thead><tr><th>field</th><th>before</th><th>after</th></tr></thead><tbody>");
    for (const v1::Mismatch& m : c.compatibility().mismatches())
      absl::StrAppend(out, "<tr><td><code>", HtmlEscape(m.field()), "</code></td>", Td(m.before()), Td(m.after()),
                      "</tr>");
    out->append("</tbody></table>");
  }
  out->append("</section>");
}

// When each phase ran (Timelines): per timeline a bar chart (report/timeline_plot.h) and a
// table of phase, start and duration.
void TimelineSection(const Evidence& evidence, std::string* out) {
  const std::vector<TimelineView> timelines = Timelines(evidence);
  if (timelines.empty()) return;
  out->append("<section id=\"timeline\"><h2>Phase timeline</h2>");
  for (size_t i = 0; i < timelines.size(); ++i) {
    const TimelineView& t = timelines[i];
    if (!t.run.empty()) absl::StrAppend(out, "<h3>", HtmlEscape(t.run), "</h3>");
    absl::StrAppend(out, "<p class=\"muted\">When each phase ran, in order: seconds on ",
                    HtmlEscape(t.timeline->clock()),
                    t.job ? " since the job was submitted at " : " since the worker began the job at ",
                    HtmlEscape(t.timeline->started_at()), ".</p>");
    const std::string chart = TimelineSvg(*t.timeline, absl::StrCat("timeline-", i));
    if (!chart.empty())
      absl::StrAppend(out, "<figure class=\"timeline-chart\">", chart,
                      "<figcaption>One bar per phase, one lane per kind; a bar's tooltip gives its start and "
                      "duration.</figcaption></figure>");
    absl::StrAppend(out,
                    "<table class=\"numbers\"><thead><tr><th>phase</th><th>start</th><th>duration</th></tr></thead>"
                    "<tbody>");
    for (const v1::PhaseSpan& span : t.timeline->spans())
      absl::StrAppend(out, "<tr><td><code>", HtmlEscape(span.phase()), "</code></td>",
                      TdNum(FormatSeconds(span.start_s())), TdNum(FormatSeconds(span.end_s() - span.start_s())),
                      "</tr>");
    out->append("</tbody></table>");
  }
  out->append("</section>");
}

void NotesSection(const v1::Comparison& c, std::string* out) {
  int left_out = 0;
  const std::vector<std::string> notes = NotesToShow(c, &left_out);
  if (notes.empty() && left_out == 0) return;
  out->append("<section id=\"notes\"><h2>Notes</h2><ul>");
  for (const std::string& n : notes) absl::StrAppend(out, "<li>", HtmlEscape(n), "</li>");
  out->append("</ul>");
  if (left_out > 0)
    absl::StrAppend(out, "<p class=\"muted\">", left_out, left_out == 1 ? " note" : " notes",
                    " about the withheld speed label not shown.</p>");
  out->append("</section>");
}

}  // namespace

std::string HtmlRenderer::Render(const Evidence& evidence) const {
  const std::vector<RunView> runs = Runs(evidence);
  const v1::Comparison* c = ComparisonOf(evidence);
  std::string out;
  out.reserve(64 * 1024);
  AppendHtmlPageStart(absl::StrCat("TorchScan: ", EvidenceTitle(evidence)), "", &out);
  AppendSummary(evidence, runs, &out);
  TimingSection(runs, &out);
  if (c) {
    DeltasSection(*c, &out);
    ChangesSection(*c, &out);
  }
  MetricsSection(runs, &out);
  ProfileSection(runs, &out);
  InstructionsSection(runs, c, &out);
  MetadataSection(runs, &out);
  RawBlocksSection(runs, &out);
  TimelineSection(evidence, &out);
  if (c) NotesSection(*c, &out);
  absl::StrAppend(&out, "<footer>Rendered by TorchScan from saved evidence (schema version ",
                  c ? c->schema_version() : runs[0].report->schema_version(),
                  "); nothing was measured or rerun to draw this page.</footer></main></body></html>\n");
  return out;
}

}  // namespace torchscan::report
