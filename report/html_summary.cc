#include "report/html_summary.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/html_run_sections.h"
#include "report/noise_floor_text.h"
#include "report/paired_plot.h"
#include "report/round_plan_text.h"
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
                    HtmlEscape(FailedCheckAftermath(c)), "</div>");
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

// The sentence's fields (report/verdict_sentence.h), one card each.
void ComparisonCards(const v1::Comparison& c, std::string* out) {
  out->append("<div class=\"cards\">");
  for (const VerdictField& f : VerdictFields(c)) {
    const char* tone = f.tone == Tone::kGood ? "ok" : f.tone == Tone::kBad ? "no" : f.tone == Tone::kDoubt ? "hm" : "";
    Card(out, tone, f.key, f.value, f.detail);
  }
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

}  // namespace

// The paired rounds beside the Mann-Whitney evidence (never the label): the claim, its
// interval and what it resolves, and the per-round ratios drawn.
void AppendPairedRounds(const v1::PairedEvidence& p, std::string* out) {
  absl::StrAppend(
      out, "<h3>Paired rounds (not used to choose the label)</h3><table class=\"numbers\"><tbody><tr><th>claim</th>",
      Td(PairedClaimText(p.claim())), "</tr><tr><th>evidence</th>", Td(PairedDetailText(p)), "</tr><tr><th>method</th>",
      Td(p.method().empty() ? "not recorded" : p.method()), "</tr></tbody></table>");
  if (const std::string svg = PairedRatioSvg(p); !svg.empty())
    absl::StrAppend(out, "<figure class=\"paired\">", svg,
                    "<figcaption>Each dot is one round's median after/before; the band is the ",
                    "interval, the dashed line no change.</figcaption></figure>");
}

void AppendDeltasTable(const v1::Comparison& c, std::string* out) {
  if (const Withheld withheld = WithheldBecause(c); withheld != Withheld::kNone) {
    std::vector<std::string> names;
    for (const v1::MetricDelta& d : c.deltas()) names.push_back(d.name());
    absl::StrAppend(out, "<p class=\"withheld\">Withheld because ", WithheldText(withheld),
                    ". The comparison keeps no delta, and this page computes none.</p>");
    if (!names.empty())
      absl::StrAppend(out, "<p class=\"muted\">Metrics: ", HtmlEscape(absl::StrJoin(names, ", ")), "</p>");
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
}

void AppendSummary(const Evidence& evidence, const std::vector<RunView>& runs, std::string* out) {
  const v1::Comparison* c = ComparisonOf(evidence);
  Header(evidence, runs, c, out);
  if (c) {
    // The one sentence that reconciles the paired claim and the guide's label, first.
    absl::StrAppend(out, "<p class=\"verdict-sentence\" id=\"verdict-sentence\">", HtmlEscape(VerdictSentence(*c)),
                    "</p>");
    Banners(*c, out);
    ComparisonCards(*c, out);
    if (const std::string plan = DescribeComparisonPlan(*c); !plan.empty())
      absl::StrAppend(out, "<p class=\"muted\" id=\"round-plan\">Timing plan: ", HtmlEscape(plan), ".</p>");
  } else {
    ReportCards(*runs[0].report, out);
  }
  // What this machine can resolve, beside the label and never choosing it.
  if (const v1::NoiseFloor* floor = NoiseFloorOf(evidence))
    absl::StrAppend(out, "<p class=\"noise-floor", floor->stale() ? " stale" : "", "\">",
                    HtmlEscape(DescribeNoiseFloor(*floor)), "</p>");
}

}  // namespace torchscan::report
