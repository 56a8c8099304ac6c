// A benchmark's history as one offline HTML page (`torchscan-client history NAME` writes it as
// history.html), from a HistoryView (report/history_view.h), in the look of the report pages.
// Pure: no I/O, never fails. Offline: no script, no external resource (the same
// Content-Security-Policy as the report pages); every string from the jobs is HTML-escaped,
// and every link (view.report_href) is escaped as an attribute value.
//
// The page:
//  - Header: name, source, counts of jobs, points and jobs that are not points (by state).
//  - Chart (inline SVG): the points oldest -> newest at equal spacing (x = order, with the
//    first, last and three finish dates in between labelled; date and time when two
//    neighbouring labels would show the same date), y = median per call on a scale from 0
//    (or just below the smallest q1) to the largest q3, with time units (core/number_format.h); the
//    IQR band (q1..q3) as a shaded area; one marker per point, an <a href> (and xlink:href) to
//    its report when report_href gives one, with a <title> tooltip (revision, median, IQR,
//    date). Machine changes are a dashed vertical line and a number on the axis; the list
//    under the chart names what changed. With more than kMaxHistoryMarkers points the band and
//    the median line still cover every point, but markers are drawn for every k-th point
//    (the newest always) and the caption says so; every point stays reachable from the table.
//  - Table of every job, newest first, with the columns of the text view (history_text.h);
//    each point's row links to its report, a machine change's row to its entry in the list.
//    Jobs that are not points have no link (report_href is called for points only).
// Cost: linear in the number of jobs (10,000 jobs render in well under 0.5 s;
// benchmarks/render_benchmark).
#pragma once

#include <string>

#include "report/history_view.h"

namespace torchscan::report {

inline constexpr int kMaxHistoryMarkers = 500;

std::string RenderHistoryHtml(const HistoryView& view);

}  // namespace torchscan::report
