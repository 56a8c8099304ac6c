#include "report/timing_plot.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/evidence_view.h"
#include "report/svg_number.h"
#include "report/time_axis.h"

namespace torchscan::report {
namespace {

constexpr double kWidth = 1100, kHeight = 300;
constexpr double kLeft = 78, kRight = 16, kTop = 34, kBottom = 62, kGap = 28;
constexpr double kPlotHeight = kHeight - kTop - kBottom;

struct Series {
  std::vector<double> per_call;  // every block, NaN where not drawable
  std::vector<double> finite;    // the drawable ones
};

Series Collect(const v1::Timing& timing) {
  Series s;
  s.per_call.reserve(timing.blocks_size());
  for (const v1::TimingBlock& b : timing.blocks()) {
    const double v = PerCallSeconds(b);
    s.per_call.push_back(v);
    if (std::isfinite(v)) s.finite.push_back(v);
  }
  return s;
}

struct Domain {
  TimeAxis axis;
  double fence = INFINITY;  // blocks above it are drawn on the top edge and counted
  double Y(double v) const { return kTop + kPlotHeight * (1 - (v - axis.lo) / (axis.hi - axis.lo)); }
};

// Tukey's far-out fence of a run (q3 + 3 IQR), never below 1.25 times its median, so that an
// ordinary spread is always drawn; infinity when the run has no summary to judge by.
double Fence(const v1::TimingSummary& s) {
  if (!std::isfinite(s.q1_s()) || !std::isfinite(s.q3_s()) || !std::isfinite(s.median_s()) || s.median_s() <= 0)
    return INFINITY;
  return std::max(s.q3_s() + 3 * (s.q3_s() - s.q1_s()), 1.25 * s.median_s());
}

// The y axis over every drawable block below the highest run's fence (and every IQR), so that
// one slow block among thousands (a page fault, a preempted core) cannot flatten the rest.
Domain MakeDomain(const std::vector<Series>& series, const std::vector<PlotRun>& runs) {
  double fence = -INFINITY;
  for (const PlotRun& run : runs) fence = std::max(fence, Fence(run.timing->summary()));
  if (!(fence > 0)) fence = INFINITY;
  double lo = INFINITY, hi = -INFINITY;
  auto include = [&](double v) {
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  };
  bool clipped = false;
  for (const Series& s : series)
    for (double v : s.finite) v <= fence ? include(v) : void(clipped = true);
  for (const PlotRun& run : runs) {
    if (run.timing->blocks().empty()) continue;  // an untimed run's summary holds zeros, not times
    include(run.timing->summary().q1_s());
    include(run.timing->summary().q3_s());
  }
  Domain d{MakeTimeAxis(lo, hi)};
  if (clipped) d.fence = d.axis.hi;  // the axis's own top, so the edge is where they are drawn
  return d;
}

// `text` cut to at most `max` code points, with an ellipsis when cut.
std::string Truncate(const std::string& text, size_t max) {
  if (DisplayWidth(text) <= max) return text;
  size_t points = 0, i = 0;
  for (; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && ++points == max) break;
  }
  return text.substr(0, i) + "\u2026";
}

// The blocks of a panel above the plot's top (Domain::fence): how many, and the slowest.
struct Clipped {
  size_t count = 0;
  double slowest = 0;
};

Clipped CountClipped(const Series& s, const Domain& d) {
  Clipped c;
  for (double v : s.finite)
    if (v > d.fence) ++c.count, c.slowest = std::max(c.slowest, v);
  return c;
}

// One <path> of dots (one per block) or of min-max columns of consecutive blocks; blocks above
// the top are drawn on its edge, and each column holding one gets a red triangle there.
std::string DataPath(const Series& s, const Domain& d, const Clipped& clipped, double x0, double width,
                     const char* color) {
  const size_t n = s.per_call.size();
  if (s.finite.empty()) return "";
  const size_t columns = std::min<size_t>(n, kMaxColumns);
  const double pitch = width / static_cast<double>(columns);
  const double stroke = std::clamp(pitch * (n <= kMaxColumns ? 0.6 : 0.9), 1.5, 7.0);
  std::string path, marks;
  path.reserve(columns * 24);
  for (size_t c = 0; c < columns; ++c) {
    const size_t begin = c * n / columns, end = (c + 1) * n / columns;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = begin; i < end; ++i)
      if (std::isfinite(s.per_call[i])) lo = std::min(lo, s.per_call[i]), hi = std::max(hi, s.per_call[i]);
    if (!(lo <= hi)) continue;
    const double x = x0 + (static_cast<double>(c) + 0.5) * pitch;
    if (hi > d.fence)
      absl::StrAppend(&marks, "M", SvgNumber(x - 4), " ", SvgNumber(kTop + 8), "L", SvgNumber(x), " ",
                      SvgNumber(kTop + 1), "L", SvgNumber(x + 4), " ", SvgNumber(kTop + 8), "Z");
    lo = std::min(lo, d.fence), hi = std::min(hi, d.fence);
    absl::StrAppend(&path, "M", SvgNumber(x), " ", SvgNumber(d.Y(hi)),
                    lo == hi ? "h0" : absl::StrCat("V", SvgNumber(d.Y(lo))));
  }
  std::string out = absl::StrFormat(
      "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" stroke-linecap=\"round\" "
      "stroke-opacity=\"0.85\"/>",
      path, color, SvgNumber(stroke));
  if (!marks.empty()) {
    const Clipped& c = clipped;
    absl::StrAppend(
        &out, "<path class=\"clipped\" d=\"", marks, "\" fill=\"#cf222e\"><title>",
        HtmlEscape(absl::StrCat(FormatCount(static_cast<int64_t>(c.count)), c.count == 1 ? " block" : " blocks",
                                " above ", FormatSeconds(d.fence), ", drawn on the top edge; the slowest took ",
                                FormatSeconds(c.slowest), " per call")),
        "</title></path>");
  }
  return out;
}

std::string Panel(const PlotRun& run, const Series& s, const Domain& d, double x0, double width, const char* color) {
  const v1::TimingSummary& summary = run.timing->summary();
  const size_t n = s.per_call.size();
  const double bottom = kTop + kPlotHeight;
  auto clamp_y = [&](double v) { return std::clamp(d.Y(v), kTop, bottom); };
  std::string out;
  absl::StrAppend(&out, "<rect x=\"", SvgNumber(x0), "\" y=\"", SvgNumber(kTop), "\" width=\"", SvgNumber(width),
                  "\" height=\"", SvgNumber(kPlotHeight), "\" fill=\"none\" stroke=\"#d0d7de\"/>");
  if (n > 0 && std::isfinite(summary.q1_s()) && std::isfinite(summary.q3_s()) && summary.q3_s() >= summary.q1_s()) {
    const double top = clamp_y(summary.q3_s());
    absl::StrAppend(&out, "<rect x=\"", SvgNumber(x0), "\" y=\"", SvgNumber(top), "\" width=\"", SvgNumber(width),
                    "\" height=\"", SvgNumber(std::max(clamp_y(summary.q1_s()) - top, 1.0)), "\" fill=\"", color,
                    "\" fill-opacity=\"0.14\"><title>IQR ", HtmlEscape(FormatSeconds(summary.q1_s())), " to ",
                    HtmlEscape(FormatSeconds(summary.q3_s())), "</title></rect>");
  }
  const Clipped clipped = CountClipped(s, d);
  out += DataPath(s, d, clipped, x0, width, color);
  // The median's line across the panel, its value in the panel's title row (never on the data).
  std::string median_text;
  if (n > 0 && std::isfinite(summary.median_s())) {
    const double y = clamp_y(summary.median_s());
    median_text = "median " + FormatSeconds(summary.median_s());
    absl::StrAppend(&out, "<line x1=\"", SvgNumber(x0), "\" x2=\"", SvgNumber(x0 + width), "\" y1=\"", SvgNumber(y),
                    "\" y2=\"", SvgNumber(y), "\" stroke=\"#1f2328\" stroke-width=\"1.5\"/>", "<text x=\"",
                    SvgNumber(x0 + width), "\" y=\"", SvgNumber(kTop - 10),
                    "\" text-anchor=\"end\" font-size=\"12\" fill=\"#1f2328\">", HtmlEscape(median_text), "</text>");
  }
  const double label_room = width - 7.0 * static_cast<double>(DisplayWidth(median_text)) - 12;
  absl::StrAppend(&out, "<text x=\"", SvgNumber(x0), "\" y=\"", SvgNumber(kTop - 10),
                  "\" font-size=\"13\" font-weight=\"600\" fill=\"", color, "\">",
                  HtmlEscape(Truncate(run.label, static_cast<size_t>(std::max(label_room, 8.0) / 7.5))), "</text>");
  // x axis: first and last block, and the axis name.
  const std::string tick_y = SvgNumber(bottom + 15);
  absl::StrAppend(&out, "<text x=\"", SvgNumber(x0), "\" y=\"", tick_y, "\" font-size=\"11\" fill=\"#57606a\">",
                  n > 0 ? "1" : "", "</text>");
  if (n > 1)
    absl::StrAppend(&out, "<text x=\"", SvgNumber(x0 + width), "\" y=\"", tick_y,
                    "\" text-anchor=\"end\" font-size=\"11\" fill=\"#57606a\">", FormatCount(static_cast<int64_t>(n)),
                    "</text>");
  std::string caption = n == 0 ? "no timing blocks" : "block, in measurement order";
  if (n > kMaxColumns)
    caption =
        absl::StrCat(FormatCount(static_cast<int64_t>(n)), " blocks in ", kMaxColumns, " columns (min to max of each)");
  if (n > 0 && s.finite.empty()) caption = "no block has a finite per-call time";
  if (const size_t skipped = n - s.finite.size(); skipped > 0 && !s.finite.empty())
    absl::StrAppend(&caption, "; ", FormatCount(static_cast<int64_t>(skipped)), " non-finite not drawn");
  absl::StrAppend(&out, "<text x=\"", SvgNumber(x0 + width / 2), "\" y=\"", tick_y,
                  "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#57606a\">", HtmlEscape(caption), "</text>");
  if (const Clipped& c = clipped; c.count > 0)
    absl::StrAppend(&out, "<text class=\"clipped-note\" x=\"", SvgNumber(x0 + width / 2), "\" y=\"",
                    SvgNumber(bottom + 31), "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#cf222e\">",
                    HtmlEscape(absl::StrCat("\u25b2 ", FormatCount(static_cast<int64_t>(c.count)),
                                            c.count == 1 ? " block" : " blocks", " above the top (slowest ",
                                            FormatSeconds(c.slowest), ")")),
                    "</text>");
  return out;
}

std::string Description(const std::vector<PlotRun>& runs) {
  std::string desc = "Per-call time of every timing block in measurement order, with the median and IQR.";
  for (const PlotRun& run : runs) {
    const v1::TimingSummary& s = run.timing->summary();
    absl::StrAppend(&desc, " ", run.label, ": ", FormatCount(run.timing->blocks_size()), " blocks, median ",
                    FormatSeconds(s.median_s()), ", IQR ", FormatSeconds(s.q1_s()), " to ", FormatSeconds(s.q3_s()),
                    ".");
  }
  return HtmlEscape(desc);
}

}  // namespace

std::string TimingPlotSvg(const std::vector<PlotRun>& runs) {
  if (runs.empty()) return "";
  std::vector<Series> series;
  for (const PlotRun& run : runs) series.push_back(Collect(*run.timing));
  const Domain d = MakeDomain(series, runs);
  const double count = static_cast<double>(runs.size());
  const double panel_width = (kWidth - kLeft - kRight - kGap * (count - 1)) / count;

  std::string out = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
      "aria-labelledby=\"plot-title plot-desc\" font-family=\"system-ui, sans-serif\">"
      "<title id=\"plot-title\">Per-call time of every block</title><desc id=\"plot-desc\">%s</desc>",
      kWidth, kHeight, Description(runs));
  for (double t : AxisTicks(d.axis)) {
    const std::string y = SvgNumber(d.Y(t));
    absl::StrAppend(&out, "<line x1=\"", SvgNumber(kLeft), "\" x2=\"", SvgNumber(kWidth - kRight), "\" y1=\"", y,
                    "\" y2=\"", y, "\" stroke=\"#eaeef2\"/><text x=\"", SvgNumber(kLeft - 6), "\" y=\"",
                    SvgNumber(d.Y(t) + 4), "\" text-anchor=\"end\" font-size=\"11\" fill=\"#57606a\">",
                    HtmlEscape(TickLabel(t)), "</text>");
  }
  const char* colors[] = {runs.size() > 1 ? "#6e7781" : "#0969da", "#0969da"};
  for (size_t i = 0; i < runs.size(); ++i) {
    const double x0 = kLeft + static_cast<double>(i) * (panel_width + kGap);
    out += Panel(runs[i], series[i], d, x0, panel_width, colors[std::min<size_t>(i, 1)]);
  }
  absl::StrAppend(&out, "<text transform=\"translate(14 ", SvgNumber(kTop + kPlotHeight / 2),
                  ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\" fill=\"#57606a\">per-call time",
                  d.axis.from_zero ? "" : " (axis not from 0)", "</text></svg>");
  return out;
}

}  // namespace torchscan::report
