#include "report/timeline_plot.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/svg_number.h"

namespace torchscan::report {
namespace {

constexpr double kWidth = 560, kLeft = 96, kRight = 12, kTop = 6, kLane = 16, kAxis = 22;
constexpr double kMinBar = 2;  // px: the shortest phases stay visible

struct Kind {
  const char* key;    // the phase name's first word, lower case
  const char* label;  // the lane's name
  const char* colour;
};

// In the order a job runs; the last is for names none of the others match.
constexpr Kind kKinds[] = {
    {"queue", "queue wait", "#8c959f"}, {"worker", "worker start", "#6e7781"}, {"libtorch", "LibTorch load", "#953800"},
    {"build", "build", "#8250df"},      {"warm-up", "warm-up", "#bf8700"},     {"timing", "timing", "#0969da"},
    {"profile", "profile", "#1a7f37"},  {"memory", "memory", "#2da44e"},       {"rss", "rss", "#cf222e"},
    {"check", "check", "#bc4c00"},      {"write", "write", "#57606a"},         {"other", "other", "#afb8c1"},
};
constexpr int kOther = static_cast<int>(std::size(kKinds)) - 1;

int KindIndex(std::string_view phase) {
  const std::string first = absl::AsciiStrToLower(std::string(phase.substr(0, phase.find(' '))));
  for (int k = 0; k < kOther; ++k)
    if (first == kKinds[k].key) return k;
  return kOther;
}

bool Drawable(const v1::PhaseSpan& s) {
  return std::isfinite(s.start_s()) && std::isfinite(s.end_s()) && s.end_s() >= s.start_s();
}

}  // namespace

std::string PhaseKind(std::string_view phase) { return kKinds[KindIndex(phase)].key; }

std::string TimelineSvg(const v1::Timeline& timeline, std::string_view id) {
  std::vector<const v1::PhaseSpan*> spans;
  for (const v1::PhaseSpan& s : timeline.spans())
    if (Drawable(s) && spans.size() < static_cast<size_t>(kMaxTimelineBars)) spans.push_back(&s);
  if (spans.empty()) return "";
  const int left_out = timeline.spans_size() - static_cast<int>(spans.size());

  double lo = 0, hi = 0;  // the axis starts at 0 unless a span starts before it
  bool used[std::size(kKinds)] = {};
  for (const v1::PhaseSpan* s : spans) {
    lo = std::min(lo, s->start_s());
    hi = std::max(hi, s->end_s());
    used[KindIndex(s->phase())] = true;
  }
  if (hi - lo <= 0) hi = lo + 1;
  int lane_of[std::size(kKinds)] = {};
  int lanes = 0;
  for (int k = 0; k <= kOther; ++k)
    if (used[k]) lane_of[k] = lanes++;
  const double height = kTop + lanes * kLane + kAxis;
  const auto x = [&](double t) { return kLeft + (t - lo) / (hi - lo) * (kWidth - kLeft - kRight); };

  const std::string e_id = HtmlEscape(id);
  std::string out = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
      "aria-labelledby=\"%s-title %s-desc\" font-family=\"system-ui, sans-serif\">"
      "<title id=\"%s-title\">Phase timeline</title><desc id=\"%s-desc\">%s</desc>",
      kWidth, height, e_id, e_id, e_id, e_id,
      HtmlEscape(absl::StrCat(spans.size(), " phases drawn",
                              left_out > 0 ? absl::StrCat(", ", left_out, " not drawn") : "", " over ",
                              FormatSeconds(hi - lo), "; one lane per kind of phase")));
  for (int k = 0; k <= kOther; ++k) {
    if (!used[k]) continue;
    const double y = kTop + lane_of[k] * kLane;
    absl::StrAppend(&out, "<text x=\"", SvgNumber(kLeft - 6), "\" y=\"", SvgNumber(y + kLane - 4),
                    "\" font-size=\"11\" text-anchor=\"end\" fill=\"#1f2328\">", kKinds[k].label, "</text>");
  }
  for (const v1::PhaseSpan* s : spans) {
    const int k = KindIndex(s->phase());
    const double x0 = x(s->start_s()), width = std::max(x(s->end_s()) - x0, kMinBar);
    absl::StrAppend(&out, "<rect x=\"", SvgNumber(x0), "\" y=\"", SvgNumber(kTop + lane_of[k] * kLane + 2),
                    "\" width=\"", SvgNumber(width), "\" height=\"", SvgNumber(kLane - 4), "\" fill=\"",
                    kKinds[k].colour, absl::EndsWith(s->phase(), "candidate") ? "\" fill-opacity=\"0.55" : "",
                    width >= 4 ? "\" stroke=\"#ffffff\" stroke-width=\"0.5" : "", "\"><title>",
                    HtmlEscape(absl::StrCat(s->phase(), ": ", FormatSeconds(s->start_s()), " + ",
                                            FormatSeconds(s->end_s() - s->start_s()))),
                    "</title></rect>");
  }
  const double axis_y = kTop + lanes * kLane;
  absl::StrAppend(&out, "<line x1=\"", SvgNumber(kLeft), "\" x2=\"", SvgNumber(kWidth - kRight), "\" y1=\"",
                  SvgNumber(axis_y), "\" y2=\"", SvgNumber(axis_y), "\" stroke=\"#57606a\"/><text x=\"",
                  SvgNumber(kLeft), "\" y=\"", SvgNumber(height - 6), "\" font-size=\"11\" fill=\"#57606a\">",
                  HtmlEscape(FormatSeconds(lo)), "</text><text x=\"", SvgNumber(kWidth - kRight), "\" y=\"",
                  SvgNumber(height - 6), "\" font-size=\"11\" text-anchor=\"end\" fill=\"#57606a\">",
                  HtmlEscape(FormatSeconds(hi)), "</text></svg>");
  return out;
}

}  // namespace torchscan::report
