#include "report/html_renderer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/evidence_view.h"
#include "report/html_instructions.h"
#include "report/html_page.h"
#include "report/html_run_sections.h"
#include "report/noise_floor_text.h"
#include "report/paired_plot.h"
#include "report/round_plan_text.h"
#include "report/timeline_plot.h"
#include "report/verdict_sentence.h"

namespace torchscan::report {
namespace {

void Card(std::string* out, const std::string& tone, std::string_view key, std::string_view value,
          std::string_view sub) {
  absl::StrAppend(out, "<div class=\"card ", tone, "\"><div class=\"k\">", HtmlEscape(key), "</div><div class=\"v\">",
                  HtmlEscape(value), "</div><div class=\"s\">", HtmlEscape(sub), "</div></div>");
}

void Header(const Evidence& evidence, const std::vector<RunView>& runs, const v1::Comparison* c, std::string* out) {
  const v1::BenchmarkReport& first = *runs[0].report;
  absl::StrAppend(out, "<header><p class=\"kicker\">", c ? "TorchScan comparison" : "TorchScan benchmark report",
                  "</p><h1>", HtmlEscape(EvidenceTitle(evidence)), "</h1>");
  std::vector<std::string> meta;
  const std::string& created = c ? c->created_at() : first.created_at();
  if (!created.empty()) meta.push_back("created " + created);
  if (!first.settings().device().empty()) meta.push_back("device " + first.settings().device());
  meta.push_back(FormatAmount(first.work_units(), first.work_unit()) + " per call");
  absl::StrAppend(out, "<p class=\"meta\">", HtmlEscape(absl::StrJoin(meta, " \u00b7 ")), "</p></header>");
}

void Banners(const v1::Comparison& c, std::string* out) {
  if (c.output_check().status() == v1::OutputCheck::failed) {
    absl::StrAppend(out, "<div class=\"banner fail\" role=\"alert\"><strong>\u2716 Output check failed</strong>",
                    c.output_check().message().empty() ? "" : HtmlEscape(c.output_check().message()) + "<br>",
                    "Both measurements are kept below, but every delta and the speed label are withheld.</div>");
  }
  if (!c.compatibility().compatible()) {
    std::vector<std::string> fields;
    for (const v1::Mismatch& m : c.compatibility().mismatches()) fields.push_back(m.field());
    absl::StrAppend(out,
                    "<div class=\"banner warn\" role=\"alert\"><strong>\u26a0 The runs are not comparable</strong>",
                    "Mismatched: ", HtmlEscape(fields.empty() ? "(not named)" : absl::StrJoin(fields, ", ")),
                    ". Every delta and the speed label are withheld.</div>");
  }
}

void ComparisonCards(const v1::Comparison& c, std::string* out) {
  const Withheld withheld = WithheldBecause(c);
  out->append("<div class=\"cards\">");
  const v1::OutputCheck& check = c.output_check();
  const char* check_tone = check.status() == v1::OutputCheck::passed   ? "ok"
                           : check.status() == v1::OutputCheck::failed ? "no"
                                                                       : "hm";
  Card(out, check_tone, "Output check", CheckStatusName(check.status()),
       check.status() == v1::OutputCheck::not_provided ? "no check was run: the label says nothing about correctness"
                                                       : check.message());
  if (withheld != Withheld::kNone) {
    Card(out, "no", "Latency change", "withheld", absl::StrCat("because ", WithheldText(withheld)));
    Card(out, "no", "Evidence", "withheld", absl::StrCat("because ", WithheldText(withheld)));
  } else {
    const auto label = c.latency_change();
    const char* tone = label == v1::Comparison::faster        ? "ok"
                       : label == v1::Comparison::slower      ? "no"
                       : label == v1::Comparison::unavailable ? "hm"
                                                              : "";
    Card(out, tone, "Latency change", LatencyLabelName(label), c.latency_change_reason());
    const v1::LatencyEvidence& e = c.evidence();
    Card(out, "", "Median change", e.has_relative_change() ? FormatPercent(e.relative_change()) : "unknown",
         e.has_mann_whitney_p() ? "Mann-Whitney p = " + FormatProbability(e.mann_whitney_p()) : e.mann_whitney_note());
  }
  Card(out, c.compatibility().compatible() ? "ok" : "no", "Compatibility",
       c.compatibility().compatible() ? "compatible" : "not comparable",
       absl::StrCat(c.compatibility().mismatches_size(),
                    c.compatibility().mismatches_size() == 1 ? " mismatch, " : " mismatches, ",
                    c.changed_settings_size(),
                    c.changed_settings_size() == 1 ? " changed setting" : " changed settings"));
  out->append("</div>");
}

void ReportCards(const v1::BenchmarkReport& r, std::string* out) {
  const v1::Timing& t = r.timing();
  const bool timed = !t.blocks().empty();
  out->append("<div class=\"cards\">");
  Card(out, "", "Median per call", timed ? FormatSeconds(t.summary().median_s()) : "no blocks",
       timed ? absl::StrCat("IQR ", FormatSeconds(t.summary().iqr_s())) : "");
  Card(out, "", "Throughput", timed ? FormatSi(t.throughput(), t.throughput_unit()) : "unknown",
       FormatAmount(r.work_units(), r.work_unit()) + " per call");
  Card(out, "", "Blocks", FormatCount(t.blocks_size()),
       absl::StrCat(FormatCount(t.calls_per_block()), " calls per block"));
  std::vector<std::string> codes;
  for (const v1::Warning& w : r.warnings()) codes.push_back(w.code());
  Card(out, codes.empty() ? "ok" : "hm", "Warnings", FormatCount(r.warnings_size()), absl::StrJoin(codes, ", "));
  out->append("</div>");
}

// The paired rounds beside the Mann-Whitney evidence (never the label): the claim, its
// interval and what it resolves, and the per-round ratios drawn.
void PairedRounds(const v1::PairedEvidence& p, std::string* out) {
  absl::StrAppend(
      out, "<h3>Paired rounds (not used to choose the label)</h3><table class=\"numbers\"><tbody><tr><th>claim</th>",
      Td(PairedClaimText(p.claim())), "</tr><tr><th>evidence</th>", Td(PairedDetailText(p)), "</tr><tr><th>method</th>",
      Td(p.method().empty() ? "not recorded" : p.method()), "</tr></tbody></table>");
  if (const std::string svg = PairedRatioSvg(p); !svg.empty())
    absl::StrAppend(out, "<figure>", svg, "<figcaption>Each dot is one round's median after/before; the band is the ",
                    "interval, the dashed line no change.</figcaption></figure>");
}

void DeltasSection(const v1::Comparison& c, std::string* out) {
  out->append("<section id=\"deltas\"><h2>Deltas (after - before)</h2>");
  const Withheld withheld = WithheldBecause(c);
  if (withheld != Withheld::kNone) {
    std::vector<std::string> names;
    for (const v1::MetricDelta& d : c.deltas()) names.push_back(d.name());
    absl::StrAppend(out, "<p class=\"withheld\">Withheld because ", WithheldText(withheld),
                    ". The comparison keeps no delta, and this page computes none.</p>");
    if (!names.empty())
      absl::StrAppend(out, "<p class=\"muted\">Metrics: ", HtmlEscape(absl::StrJoin(names, ", ")), "</p>");
    out->append("</section>");
    return;
  }
  out->append(
      "<table><thead><tr><th>metric</th><th class=\"n\">before</th><th class=\"n\">after</th>"
      "<th class=\"n\">change</th><th class=\"n\">ratio</th><th>method &middot; scope, or why unknown</th></tr>"
      "</thead><tbody>");
  for (const v1::MetricDelta& d : c.deltas()) {
    const bool known = d.known() && d.has_delta();
    absl::StrAppend(out, known ? "<tr>" : "<tr class=\"unknown\">", "<td><code>", HtmlEscape(d.name()), "</code></td>",
                    TdNum(d.has_before() ? FormatMetric(d.before(), d.unit()) : "-"),
                    TdNum(d.has_after() ? FormatMetric(d.after(), d.unit()) : "-"),
                    TdNum(known ? FormatSignedMetric(d.delta(), d.unit()) : "unknown"),
                    TdNum(known && d.has_ratio() ? FormatRatio(d.ratio()) : ""));
    if (known) {
      absl::StrAppend(out, "<td class=\"detail\">", HtmlEscape(absl::StrCat(d.method(), " \u00b7 ", d.scope())),
                      "</td></tr>");
    } else {
      absl::StrAppend(out, "<td><span class=\"badge warn\">unknown</span> ", HtmlEscape(d.unknown_reason()),
                      "</td></tr>");
    }
  }
  out->append("</tbody></table>");
  const v1::LatencyEvidence& e = c.evidence();
  absl::StrAppend(out,
                  "<h3>Evidence (not used to choose the label)</h3><table class=\"numbers\"><tbody><tr><th>relative "
                  "change of medians</th>",
                  TdNum(e.has_relative_change() ? FormatPercent(e.relative_change()) : "unknown"),
                  "</tr><tr><th>Mann-Whitney U, two-sided p</th>",
                  TdNum(e.has_mann_whitney_p() ? FormatProbability(e.mann_whitney_p()) : "unknown"),
                  "</tr><tr><th>method</th>", Td(e.mann_whitney_note()), "</tr></tbody></table>");
  PairedRounds(e.paired(), out);
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
  Header(evidence, runs, c, &out);
  if (c) {
    // The one sentence that reconciles the paired claim and the guide's label, first.
    absl::StrAppend(&out, "<p class=\"verdict-sentence\" id=\"verdict-sentence\">", HtmlEscape(VerdictSentence(*c)),
                    "</p>");
    Banners(*c, &out);
    ComparisonCards(*c, &out);
    if (const std::string plan = DescribeComparisonPlan(*c); !plan.empty())
      absl::StrAppend(&out, "<p class=\"muted\" id=\"round-plan\">Timing plan: ", HtmlEscape(plan), ".</p>");
  } else {
    ReportCards(*runs[0].report, &out);
  }
  // What this machine can resolve, beside the label and never choosing it.
  if (const v1::NoiseFloor* floor = NoiseFloorOf(evidence))
    absl::StrAppend(&out, "<p class=\"noise-floor", floor->stale() ? " stale" : "", "\">",
                    HtmlEscape(DescribeNoiseFloor(*floor)), "</p>");
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
