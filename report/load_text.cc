#include "report/load_text.h"

#include "absl/strings/str_format.h"

namespace torchscan::report {

std::string DescribeTimingLoad(const v1::Timing& timing) {
  if (!timing.has_load() || !(timing.load().interval_s() > 0)) return "";
  const v1::TimingLoad& l = timing.load();
  const double percent = 100 * l.other_cpu_share();
  const std::string share = percent > 0 && percent < 0.5 ? "<1%" : absl::StrFormat("%.0f%%", percent);
  return absl::StrFormat("others used %s of CPUs %s; 1-min load %.2f to %.2f", share, l.cpus(), l.loadavg_1m_start(),
                         l.loadavg_1m_end());
}

}  // namespace torchscan::report
