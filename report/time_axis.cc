#include "report/time_axis.h"

#include <cmath>

#include "core/number_format.h"

namespace torchscan::report {

TimeAxis MakeTimeAxis(double lo, double hi) {
  TimeAxis axis;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo <= hi)) return axis;  // nothing drawable: 0..1
  if (lo == hi) {
    const double pad = lo != 0 ? std::fabs(lo) * 0.1 : 1e-9;
    lo -= pad;
    hi += pad;
  }
  axis.from_zero = lo >= 0 && lo <= 0.5 * hi;
  const double span = hi - (axis.from_zero ? 0 : lo);
  axis.lo = axis.from_zero ? 0 : lo - 0.05 * span;
  axis.hi = hi + 0.05 * span;
  return axis;
}

std::vector<double> AxisTicks(const TimeAxis& axis) {
  const double raw = (axis.hi - axis.lo) / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double n = raw / magnitude;
  const double step = (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * magnitude;
  std::vector<double> ticks;
  if (!std::isfinite(step) || step <= 0) return ticks;
  for (double t = std::ceil(axis.lo / step) * step; t <= axis.hi && ticks.size() < 12; t += step)
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

std::string TickLabel(double seconds) {
  std::string text = FormatSeconds(seconds);
  const size_t space = text.find(' ');
  const size_t point = text.find('.');
  if (space == std::string::npos || point == std::string::npos || point > space) return text;
  size_t end = space;
  while (end > point + 1 && text[end - 1] == '0') --end;
  if (end == point + 1) --end;
  return text.substr(0, end) + text.substr(space);
}

}  // namespace torchscan::report
