// The y axis of the inline SVG charts of per-call time (report/timing_plot.h,
// report/history_html.h): its range, round tick values and their labels. Pure functions.
#pragma once

#include <string>
#include <vector>

namespace torchscan::report {

struct TimeAxis {
  double lo = 0, hi = 1;  // seconds at the bottom and top of the plot
  bool from_zero = true;  // false: the axis starts just below the data (say "axis not from 0")
};

// The axis for data spanning [data_lo, data_hi] seconds: from 0 when data_lo >= 0 and
// data_lo <= data_hi / 2, else from 5% of the span below data_lo; 5% headroom above
// data_hi. Equal ends are padded by 10% of the value (1e-9 s at 0). No finite data
// (data_lo > data_hi, or either not finite): 0..1.
TimeAxis MakeTimeAxis(double data_lo, double data_hi);

// About five round tick values (1, 2 or 5 times a power of ten) inside [lo, hi], at most
// 12; none when the span is not finite and positive.
std::vector<double> AxisTicks(const TimeAxis& axis);

// A tick's time without trailing zeros: "50.00 µs" -> "50 µs", "1.500 ms" -> "1.5 ms".
std::string TickLabel(double seconds);

}  // namespace torchscan::report
