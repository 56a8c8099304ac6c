// The one way the SVG plots (report/timing_plot.h, paired_plot.h, timeline_plot.h,
// history_html.h) write a number into an attribute or a path: fixed, one decimal. Pure, no
// I/O, never fails. Text inside SVG elements is escaped with report/escaping.h's HtmlEscape.
#pragma once

#include <string>

namespace torchscan::report {

// `value` with one decimal ("12.3", "-0.5", "400.0"), as printf's "%.1f" writes it: a NaN or
// an infinity gives "nan" or "inf" (callers clamp to the plot first).
std::string SvgNumber(double value);

}  // namespace torchscan::report
