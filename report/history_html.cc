#include "report/history_html.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/history_points.h"
#include "report/html_page.h"
#include "report/svg_number.h"
#include "report/time_axis.h"

namespace torchscan::report {
namespace {

constexpr double kWidth = 1100, kHeight = 340;
constexpr double kLeft = 78, kRight = 24, kTop = 34, kBottom = 58, kInset = 10;
constexpr double kPlotHeight = kHeight - kTop - kBottom;
constexpr int kDateLabels = 5;

constexpr const char* kHistoryStyle = R"css(
svg a circle{cursor:pointer}svg a:hover circle,svg a:focus circle{stroke:#1f2328;stroke-width:2}
ol.machine-changes{margin:6px 0;padding-left:22px;font-size:13px}ol.machine-changes li{overflow-wrap:anywhere}
tr.machine-change td{border-top:2px dashed var(--hm)}
)css";

// The link to a point's report, escaped for an attribute; "" when there is none.
std::string Href(const HistoryView& view, const v1::Job& job) {
  return view.report_href ? HtmlEscape(view.report_href(job)) : "";
}

// The band's ends for a point: q1..q3 when they are finite and ordered, else the median.
std::pair<double, double> Band(const v1::TimingSummary& t) {
  if (std::isfinite(t.q1_s()) && std::isfinite(t.q3_s()) && t.q1_s() <= t.q3_s()) return {t.q1_s(), t.q3_s()};
  return {t.median_s(), t.median_s()};
}

std::string Tooltip(const v1::Job& job) {
  const v1::ResultSummary& s = job.summary();
  return HtmlEscape(absl::StrCat(job.spec().revision().empty() ? "(no revision)" : job.spec().revision(),
                                 " \u00b7 median ", FormatSeconds(s.latency().median_s()), " \u00b7 IQR ",
                                 FormatSeconds(s.latency().iqr_s()), " \u00b7 ", ShortTime(job.finished_at()),
                                 " \u00b7 job ", job.id()));
}

struct Chart {
  size_t n;
  TimeAxis axis;
  double X(size_t i) const {
    return n == 1 ? kLeft + (kWidth - kLeft - kRight) / 2
                  : kLeft + kInset +
                        static_cast<double>(i) * (kWidth - kLeft - kRight - 2 * kInset) / static_cast<double>(n - 1);
  }
  double Y(double v) const {
    return std::clamp(kTop + kPlotHeight * (1 - (v - axis.lo) / (axis.hi - axis.lo)), kTop, kTop + kPlotHeight);
  }
};

// Markers for every stride-th point counted from the newest, so the newest is always drawn.
size_t MarkerStride(size_t points) {
  return points <= static_cast<size_t>(kMaxHistoryMarkers)
             ? 1
             : (points + kMaxHistoryMarkers - 1) / static_cast<size_t>(kMaxHistoryMarkers);
}

// The chart's frame for `points`: their x positions and a time axis covering every band.
Chart ChartFor(const std::vector<const v1::Job*>& points) {
  double lo = INFINITY, hi = -INFINITY;
  for (const v1::Job* p : points) {
    const auto [q1, q3] = Band(p->summary().latency());
    lo = std::min(lo, q1);
    hi = std::max(hi, q3);
  }
  return Chart{points.size(), MakeTimeAxis(lo, hi)};
}

// The <svg> start with its title and description, the axis ticks and the plot's frame.
void AppendChartStart(const Chart& c, const HistoryRows& rows, std::string* out) {
  absl::StrAppend(
      out, "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" viewBox=\"0 0 ",
      kWidth, " ", kHeight,
      "\" role=\"img\" aria-labelledby=\"history-title history-desc\" font-family=\"system-ui, sans-serif\">"
      "<title id=\"history-title\">Median per call over time</title><desc id=\"history-desc\">",
      HtmlEscape(absl::StrCat(rows.points.size(), " points oldest to newest: median per call with its IQR band, ",
                              rows.machine_changes.size(), " machine changes marked")),
      "</desc>");
  for (double t : AxisTicks(c.axis)) {
    const std::string y = SvgNumber(c.Y(t));
    absl::StrAppend(out, "<line x1=\"", SvgNumber(kLeft), "\" x2=\"", SvgNumber(kWidth - kRight), "\" y1=\"", y,
                    "\" y2=\"", y, "\" stroke=\"#eaeef2\"/><text x=\"", SvgNumber(kLeft - 6), "\" y=\"",
                    SvgNumber(c.Y(t) + 4), "\" text-anchor=\"end\" font-size=\"11\" fill=\"#57606a\">",
                    HtmlEscape(TickLabel(t)), "</text>");
  }
  absl::StrAppend(out, "<rect x=\"", SvgNumber(kLeft), "\" y=\"", SvgNumber(kTop), "\" width=\"",
                  SvgNumber(kWidth - kLeft - kRight), "\" height=\"", SvgNumber(kPlotHeight),
                  "\" fill=\"none\" stroke=\"#d0d7de\"/>");
}

// The IQR band (along q3 oldest -> newest, back along q1) and the median line.
void AppendBandAndLine(const Chart& c, const std::vector<const v1::Job*>& points, std::string* out) {
  std::string band = "M", line = "M";
  band.reserve(points.size() * 24);
  line.reserve(points.size() * 12);
  for (size_t i = 0; i < points.size(); ++i) {
    absl::StrAppend(&band, i ? "L" : "", SvgNumber(c.X(i)), " ",
                    SvgNumber(c.Y(Band(points[i]->summary().latency()).second)));
    absl::StrAppend(&line, i ? "L" : "", SvgNumber(c.X(i)), " ",
                    SvgNumber(c.Y(points[i]->summary().latency().median_s())));
  }
  for (size_t i = points.size(); i-- > 0;)
    absl::StrAppend(&band, "L", SvgNumber(c.X(i)), " ", SvgNumber(c.Y(Band(points[i]->summary().latency()).first)));
  if (points.size() == 1) {  // a band of one point: a short bar
    const auto [q1, q3] = Band(points[0]->summary().latency());
    band = absl::StrCat("M", SvgNumber(c.X(0) - 6), " ", SvgNumber(c.Y(q3)), "H", SvgNumber(c.X(0) + 6), "V",
                        SvgNumber(c.Y(q1)), "H", SvgNumber(c.X(0) - 6));
  }
  absl::StrAppend(out, "<path d=\"", band, "Z\" fill=\"#0969da\" fill-opacity=\"0.15\" stroke=\"none\"/>", "<path d=\"",
                  line, "\" fill=\"none\" stroke=\"#0969da\" stroke-width=\"1.5\"/>");
}

// Machine changes: a dashed line between the two points, numbered above the plot.
void AppendMachineChanges(const Chart& c, const HistoryRows& rows, std::string* out) {
  const std::vector<const v1::Job*>& points = rows.points;
  for (size_t k = 0, i = 0; k < rows.machine_changes.size(); ++k) {
    while (i < points.size() && points[i] != rows.machine_changes[k].after) ++i;
    if (i == 0 || i >= points.size()) continue;
    const std::string x = SvgNumber((c.X(i - 1) + c.X(i)) / 2);
    absl::StrAppend(out, "<g class=\"machine-change\"><title>",
                    HtmlEscape(absl::StrCat("machine change #", k + 1, ": ",
                                            absl::StrJoin(rows.machine_changes[k].differences, "; "))),
                    "</title><line x1=\"", x, "\" x2=\"", x, "\" y1=\"", SvgNumber(kTop - 4), "\" y2=\"",
                    SvgNumber(kTop + kPlotHeight),
                    "\" stroke=\"#bf8700\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/><text x=\"", x, "\" y=\"",
                    SvgNumber(kTop - 8), "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#7d4e00\">#", k + 1,
                    "</text></g>");
  }
}

// One marker per point (every stride-th when there are many), linked to its report.
void AppendMarkers(const HistoryView& view, const Chart& c, const std::vector<const v1::Job*>& points,
                   std::string* out) {
  const size_t stride = MarkerStride(points.size());
  const std::string radius = points.size() <= 60 ? "4.5" : points.size() <= kMaxHistoryMarkers ? "3" : "2.5";
  for (size_t i = 0; i < points.size(); ++i) {
    if ((points.size() - 1 - i) % stride != 0) continue;
    const std::string href = Href(view, *points[i]);
    const std::string circle = absl::StrCat("<circle cx=\"", SvgNumber(c.X(i)), "\" cy=\"",
                                            SvgNumber(c.Y(points[i]->summary().latency().median_s())), "\" r=\"",
                                            radius, "\" fill=\"#0969da\" stroke=\"#ffffff\" stroke-width=\"1\"><title>",
                                            Tooltip(*points[i]), "</title></circle>");
    if (href.empty()) {
      *out += circle;
    } else {
      absl::StrAppend(out, "<a href=\"", href, "\" xlink:href=\"", href, "\">", circle, "</a>");
    }
  }
}

// Dates under the x axis: the first, the last and a few between; with times when two
// neighbouring labels would show the same date. Each with its revision below it.
void AppendDateLabels(const Chart& c, const std::vector<const v1::Job*>& points, std::string* out) {
  std::vector<size_t> labelled;
  for (int k = 0; k < kDateLabels && !points.empty(); ++k) {
    const size_t i = static_cast<size_t>(std::lround(static_cast<double>(k) * (points.size() - 1) / (kDateLabels - 1)));
    if (labelled.empty() || labelled.back() != i) labelled.push_back(i);
  }
  bool with_times = false;
  for (size_t k = 1; k < labelled.size(); ++k)
    with_times |= ShortDate(points[labelled[k]]->finished_at()) == ShortDate(points[labelled[k - 1]]->finished_at());
  const std::string date_y = SvgNumber(kTop + kPlotHeight + 16), revision_y = SvgNumber(kTop + kPlotHeight + 30);
  for (size_t k = 0; k < labelled.size(); ++k) {
    const size_t i = labelled[k];
    const char* anchor = labelled.size() == 1       ? "middle"
                         : k == 0                   ? "start"
                         : k + 1 == labelled.size() ? "end"
                                                    : "middle";
    const std::string& when = points[i]->finished_at();
    absl::StrAppend(out, "<text x=\"", SvgNumber(c.X(i)), "\" y=\"", date_y, "\" text-anchor=\"", anchor,
                    "\" font-size=\"11\" fill=\"#57606a\">", HtmlEscape(with_times ? ShortTime(when) : ShortDate(when)),
                    "</text>");
    // The revision under its date: what a reader looks for when a step shows.
    if (!points[i]->spec().revision().empty())
      absl::StrAppend(out, "<text x=\"", SvgNumber(c.X(i)), "\" y=\"", revision_y, "\" text-anchor=\"", anchor,
                      "\" font-size=\"11\" font-family=\"monospace\" fill=\"#57606a\">",
                      HtmlEscape(ShortRevision(points[i]->spec().revision())), "</text>");
  }
}

// The axis captions and the </svg> end.
void AppendChartEnd(const Chart& c, std::string* out) {
  absl::StrAppend(out, "<text x=\"", SvgNumber(kLeft + (kWidth - kLeft - kRight) / 2), "\" y=\"",
                  SvgNumber(kHeight - 12),
                  "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#57606a\">points in order, oldest to newest "
                  "(equal spacing; dates by finish, revisions below)</text><text transform=\"translate(14 ",
                  SvgNumber(kTop + kPlotHeight / 2),
                  ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\" fill=\"#57606a\">median per call",
                  c.axis.from_zero ? "" : " (axis not from 0)", "</text></svg>");
}

std::string ChartSvg(const HistoryView& view, const HistoryRows& rows) {
  const Chart c = ChartFor(rows.points);
  std::string out;
  out.reserve(rows.points.size() * 90 + 8192);
  AppendChartStart(c, rows, &out);
  AppendBandAndLine(c, rows.points, &out);
  AppendMachineChanges(c, rows, &out);
  AppendMarkers(view, c, rows.points, &out);
  AppendDateLabels(c, rows.points, &out);
  AppendChartEnd(c, &out);
  return out;
}

void ChartSection(const HistoryView& view, const HistoryRows& rows, std::string* out) {
  out->append("<section id=\"chart\"><h2>Median per call over time</h2>");
  if (rows.points.empty()) {
    out->append("<p class=\"muted\">No succeeded job with figures yet: nothing to plot.</p></section>");
    return;
  }
  const size_t stride = MarkerStride(rows.points.size());
  absl::StrAppend(out, "<figure>", ChartSvg(view, rows), "<figcaption>",
                  stride == 1 ? "One marker per point"
                              : absl::StrCat("One marker in ", stride, " of the ",
                                             FormatCount(static_cast<int64_t>(rows.points.size())),
                                             " points (the newest always); every point links from the table below"),
                  view.report_href ? ", each linking to its report" : "",
                  ". The line is the median per call, the band its IQR (q1 to q3); dashed lines mark machine "
                  "changes, which break comparability.</figcaption></figure>");
  if (!rows.machine_changes.empty()) {
    out->append("<h3>Machine changes</h3><ol class=\"machine-changes\">");
    for (size_t k = 0; k < rows.machine_changes.size(); ++k) {
      const MachineChange& m = rows.machine_changes[k];
      absl::StrAppend(out, "<li id=\"machine-change-", k + 1, "\">#", k + 1, " between <code>",
                      HtmlEscape(m.before->id()), "</code> and <code>", HtmlEscape(m.after->id()), "</code>: ");
      absl::StrAppend(out, HtmlEscape(absl::StrJoin(m.differences, "; ")), "</li>");
    }
    out->append("</ol>");
  }
  out->append("</section>");
}

void TableSection(const HistoryView& view, const HistoryRows& rows, std::string* out) {
  absl::StrAppend(
      out,
      "<section id=\"jobs\"><h2>Jobs, newest first</h2><table class=\"history\"><thead><tr><th>job</th>"
      "<th>finished</th><th>revision</th><th>model</th><th class=\"n\">baseline</th><th class=\"n\">median</th>"
      "<th class=\"n\">IQR</th>"
      "<th class=\"n\">change</th><th>label</th><th>machine</th></tr></thead><tbody>");
  for (const HistoryRow& row : rows.rows) {
    const v1::Job& job = *row.job;
    const std::string href = row.point ? Href(view, job) : "";
    absl::StrAppend(out,
                    !row.point           ? "<tr class=\"unknown\">"
                    : row.machine_change ? "<tr class=\"machine-change\">"
                                         : "<tr>",
                    "<td><code>", href.empty() ? "" : absl::StrCat("<a href=\"", href, "\">"), HtmlEscape(job.id()),
                    href.empty() ? "" : "</a>", "</code></td><td>",
                    job.finished_at().empty() ? "-" : HtmlEscape(ShortTime(job.finished_at())), "</td><td>");
    if (job.spec().revision().empty()) {
      out->append("-");
    } else {
      absl::StrAppend(out, "<code title=\"", HtmlEscape(job.spec().revision()), "\">",
                      HtmlEscape(ShortRevision(job.spec().revision())), "</code>");
    }
    out->append("</td>");
    if (!row.point) {
      absl::StrAppend(out, "<td colspan=\"7\">", HtmlEscape(NotPointText(job)), "</td></tr>");
      continue;
    }
    const v1::ResultSummary& s = job.summary();
    absl::StrAppend(out, "<td>", HtmlEscape(s.model()), "</td><td class=\"n\">",
                    s.has_baseline_latency() ? HtmlEscape(FormatSeconds(s.baseline_latency().median_s())) : "",
                    "</td><td class=\"n\">", HtmlEscape(FormatSeconds(s.latency().median_s())), "</td><td class=\"n\">",
                    HtmlEscape(FormatSeconds(s.latency().iqr_s())), "</td><td class=\"n\">",
                    row.change ? FormatPercent(*row.change) : "", "</td><td>",
                    job.spec().has_compare() ? HtmlEscape(job.latency_change()) : "", "</td><td>");
    if (row.machine_change)
      absl::StrAppend(out, "<a href=\"#machine-change-", row.machine_change, "\">changed #", row.machine_change,
                      "</a>");
    out->append("</td></tr>");
  }
  out->append("</tbody></table></section>");
}

}  // namespace

std::string RenderHistoryHtml(const HistoryView& view) {
  std::string out;
  AppendHtmlPageStart(absl::StrCat("TorchScan history: ", view.name), kHistoryStyle, &out);
  absl::StrAppend(&out, "<header><p class=\"kicker\">TorchScan history</p><h1>", HtmlEscape(view.name), "</h1>");
  if (view.jobs.empty()) {
    absl::StrAppend(&out, "<p class=\"meta\">", HtmlEscape(view.source.empty() ? "" : "from " + view.source),
                    "</p></header><section id=\"jobs\"><p>No jobs named <code>", HtmlEscape(view.name), "</code>",
                    view.source.empty() ? "" : absl::StrCat(" at <code>", HtmlEscape(view.source), "</code>"),
                    ".</p></section>");
  } else {
    const HistoryRows rows = BuildHistoryRows(view);
    out.reserve(out.size() + rows.rows.size() * 480 + 16384);
    std::string meta = view.source.empty() ? "" : "from " + view.source + " \u00b7 ";
    absl::StrAppend(&meta, HistoryCounts(rows));
    if (!rows.points.empty())
      absl::StrAppend(&meta, " \u00b7 ", ShortDate(rows.points.front()->finished_at()), " to ",
                      ShortDate(rows.points.back()->finished_at()));
    absl::StrAppend(&out, "<p class=\"meta\">", HtmlEscape(meta), "</p></header>");
    ChartSection(view, rows, &out);
    TableSection(view, rows, &out);
  }
  out.append(
      "<footer>Rendered by TorchScan from the daemon's job records; nothing was measured or rerun to draw this "
      "page.</footer></main></body></html>\n");
  return out;
}

}  // namespace torchscan::report
