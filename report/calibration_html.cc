#include "report/calibration_html.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/evidence_view.h"
#include "report/html_page.h"
#include "report/html_run_sections.h"
#include "report/noise_floor_text.h"

namespace torchscan::report {
namespace {

void Row(std::string_view key, std::string_view value, std::string* out) {
  absl::StrAppend(out, "<tr><th>", HtmlEscape(key), "</th>", Td(value), "</tr>");
}

void ForecastSection(const v1::NoiseFloor& floor, std::string* out) {
  out->append("<section id=\"forecast\"><h2>A compare at its defaults, here</h2>");
  if (!floor.has_forecast()) {
    out->append(
        "<p class=\"muted\">No forecast: this calibration's pairs have no round ratios to draw from.</p>"
        "</section>");
    return;
  }
  const v1::DecisionForecast& f = floor.forecast();
  out->append("<table class=\"numbers\"><tbody>");
  Row("smallest change that matters", absl::StrCat("\u00b1", UnsignedPercent(f.smallest_change())), out);
  Row("time cap", FormatSeconds(f.max_time_s()), out);
  Row("changes claimed in 90 % of compares",
      f.has_resolvable_change() ? absl::StrCat(UnsignedPercent(f.resolvable_change()), " or more") : "none up to 50 %",
      out);
  Row("with no change: decided equivalent", UnsignedPercent(f.equivalent_share()), out);
  Row("with no change: claimed faster or slower", UnsignedPercent(f.false_claim_share()), out);
  Row("with no change: median time until it stopped", FormatSeconds(f.median_stop_s()), out);
  Row("builds and the work after timing", FormatSeconds(f.outside_timing_s()), out);
  Row("planned rounds, both runs", FormatSeconds(f.planned_s()), out);
  Row("one more build pair", FormatSeconds(f.build_pair_s()), out);
  Row("method", f.method(), out);
  out->append("</tbody></table></section>");
}

void PairsSection(const v1::Calibration& c, std::string* out) {
  const v1::NoiseFloor& f = c.noise_floor();
  absl::StrAppend(out, "<section id=\"pairs\"><h2>A/A pairs</h2><table class=\"numbers\"><tbody>");
  Row("pairs", absl::StrCat(f.pairs()), out);
  Row("false labels (the guide's rule)", absl::StrCat(f.false_labels(), " of ", f.pairs()), out);
  Row("false paired claims", absl::StrCat(f.false_claims(), " of ", f.pairs()), out);
  Row("relative median differences",
      absl::StrCat(FormatPercent(f.ratio_min()), " to ", FormatPercent(f.ratio_max()), " (5th to 95th percentile ",
                   FormatPercent(f.ratio_p5()), " to ", FormatPercent(f.ratio_p95()), ")"),
      out);
  Row("a fixed-length compare resolves",
      f.has_resolvable_change() ? absl::StrCat(UnsignedPercent(f.resolvable_change()), " or more (", f.method(), ")")
                                : (f.note().empty() ? "unknown" : f.note()),
      out);
  out->append(
      "</tbody></table><table><thead><tr><th>pair</th><th>guide's label</th><th>paired claim</th>"
      "<th class=\"n\">median ratio</th></tr></thead><tbody>");
  for (int i = 0; i < c.pairs_size(); ++i) {
    const v1::CalibrationPair& p = c.pairs(i);
    absl::StrAppend(out, "<tr>", TdNum(absl::StrCat(i + 1)), Td(p.latency_change()), Td(p.claim()),
                    TdNum(p.has_median_ratio() ? absl::StrFormat("%.4f", p.median_ratio()) : "-"), "</tr>");
  }
  out->append("</tbody></table></section>");
}

}  // namespace

std::string RenderCalibrationHtml(const v1::Calibration& calibration) {
  const v1::NoiseFloor& floor = calibration.noise_floor();
  std::string out;
  AppendHtmlPageStart(absl::StrCat("TorchScan calibration: ", floor.workload()), "", &out);
  absl::StrAppend(&out, "<header><p class=\"kicker\">TorchScan calibration</p><h1>", HtmlEscape(floor.workload()),
                  "</h1><p class=\"meta\">",
                  HtmlEscape(absl::StrCat("measured ", floor.measured_at(), " on ", floor.hostname(), " \u00b7 ",
                                          floor.cpu_model())),
                  "</p></header>");
  absl::StrAppend(&out, "<p class=\"noise-floor\" id=\"noise-floor\">", HtmlEscape(DescribeNoiseFloor(floor)), "</p>");
  ForecastSection(floor, &out);
  PairsSection(calibration, &out);
  absl::StrAppend(&out, "<footer>Rendered by TorchScan from saved evidence (schema version ",
                  calibration.schema_version(),
                  "); nothing was measured or rerun to draw this page.</footer></main></body></html>\n");
  return out;
}

}  // namespace torchscan::report
