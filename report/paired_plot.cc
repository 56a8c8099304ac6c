#include "report/paired_plot.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/evidence_view.h"
#include "report/svg_number.h"

namespace torchscan::report {
namespace {

// The dots and the interval around kMid; "1 (no change)" on a row of its own below them, the
// axis's ends on the bottom row, so that the labels never overlap wherever 1 falls.
constexpr double kWidth = 480, kHeight = 80, kLeft = 16, kRight = 16, kMid = 26, kOneRow = 58;

bool Drawable(double r) { return std::isfinite(r) && r > 0; }

// A log axis: a ratio and its inverse lie equally far from 1, and no tick can go below 0.
struct Axis {
  double lo, hi;  // natural logs of the ratios at the two ends
  double X(double r) const { return kLeft + (std::log(r) - lo) / (hi - lo) * (kWidth - kLeft - kRight); }
};

Axis MakeAxis(const std::vector<double>& ratios, const v1::PairedEvidence& p) {
  double lo = 0, hi = 0;  // log(1): the axis always holds no change
  for (double r : ratios) lo = std::min(lo, std::log(r)), hi = std::max(hi, std::log(r));
  if (p.has_ci_low() && Drawable(p.ci_low())) lo = std::min(lo, std::log(p.ci_low()));
  if (p.has_ci_high() && Drawable(p.ci_high())) hi = std::max(hi, std::log(p.ci_high()));
  const double pad = std::max((hi - lo) * 0.08, std::log(1.01));
  return {lo - pad, hi + pad};
}

}  // namespace

std::string PairedRatioSvg(const v1::PairedEvidence& p) {
  std::vector<double> ratios;
  for (double r : p.round_ratios())
    if (Drawable(r) && ratios.size() < static_cast<size_t>(kMaxPairedDots)) ratios.push_back(r);
  if (ratios.empty()) return "";
  const Axis a = MakeAxis(ratios, p);
  const int left_out = p.round_ratios_size() - static_cast<int>(ratios.size());
  std::string out = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
      "aria-labelledby=\"paired-title paired-desc\" font-family=\"system-ui, sans-serif\">"
      "<title id=\"paired-title\">Per-round ratio after/before</title><desc id=\"paired-desc\">%s</desc>",
      kWidth, kHeight,
      HtmlEscape(absl::StrCat(ratios.size(), " rounds drawn",
                              left_out > 0 ? absl::StrCat(", ", left_out, " not drawn") : "", "; ",
                              PairedSummaryText(p))));
  if (p.has_ci_low() && p.has_ci_high() && Drawable(p.ci_low()) && Drawable(p.ci_high()) && p.ci_low() <= p.ci_high()) {
    const double x0 = a.X(p.ci_low()), x1 = a.X(p.ci_high());
    absl::StrAppend(&out, "<rect x=\"", SvgNumber(x0), "\" y=\"", SvgNumber(kMid - 14), "\" width=\"",
                    SvgNumber(std::max(x1 - x0, 1.0)),
                    "\" height=\"28\" fill=\"#0969da\" fill-opacity=\"0.14\"><title>",
                    HtmlEscape(absl::StrCat("interval ", FormatRatio(p.ci_low()), " to ", FormatRatio(p.ci_high()))),
                    "</title></rect>");
  }
  const double x_one = a.X(1);
  const std::string one = SvgNumber(x_one);
  // Near an edge the label grows inwards, so that it stays inside the picture.
  const char* anchor = x_one < kLeft + 40 ? "start" : x_one > kWidth - kRight - 40 ? "end" : "middle";
  absl::StrAppend(&out, "<line x1=\"", one, "\" x2=\"", one, "\" y1=\"", SvgNumber(kMid - 18), "\" y2=\"",
                  SvgNumber(kOneRow - 11), "\" stroke=\"#57606a\" stroke-dasharray=\"3 3\"/><text x=\"", one, "\" y=\"",
                  SvgNumber(kOneRow), "\" font-size=\"11\" text-anchor=\"", anchor,
                  "\" fill=\"#57606a\">1 (no change)</text>");
  if (p.has_median_ratio() && Drawable(p.median_ratio())) {
    const std::string m = SvgNumber(a.X(p.median_ratio()));
    absl::StrAppend(&out, "<line x1=\"", m, "\" x2=\"", m, "\" y1=\"", SvgNumber(kMid - 14), "\" y2=\"",
                    SvgNumber(kMid + 14), "\" stroke=\"#0969da\" stroke-width=\"2\"><title>median ",
                    HtmlEscape(FormatRatio(p.median_ratio())), "</title></line>");
  }
  std::string path;
  for (size_t i = 0; i < ratios.size(); ++i)  // three lanes so tied rounds stay countable
    absl::StrAppend(&path, "M", SvgNumber(a.X(ratios[i])), " ", SvgNumber(kMid + (static_cast<int>(i % 3) - 1) * 7.0),
                    "h0");
  absl::StrAppend(&out, "<path d=\"", path,
                  "\" fill=\"none\" stroke=\"#1f2328\" stroke-width=\"6\" stroke-linecap=\"round\" "
                  "stroke-opacity=\"0.8\"/>");
  absl::StrAppend(&out, "<text x=\"", SvgNumber(kLeft), "\" y=\"", SvgNumber(kHeight - 6),
                  "\" font-size=\"11\" fill=\"#57606a\">", HtmlEscape(FormatRatio(std::exp(a.lo))), "</text><text x=\"",
                  SvgNumber(kWidth - kRight), "\" y=\"", SvgNumber(kHeight - 6),
                  "\" font-size=\"11\" text-anchor=\"end\" fill=\"#57606a\">", HtmlEscape(FormatRatio(std::exp(a.hi))),
                  "</text></svg>");
  return out;
}

}  // namespace torchscan::report
