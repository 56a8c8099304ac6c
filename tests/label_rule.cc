#include "tests/label_rule.h"

#include <algorithm>
#include <cmath>

namespace torchscan::e2e {

::testing::AssertionResult LabelFollowsTheGuideRule(const v1::Comparison& c) {
  const v1::TimingSummary& before = c.before().timing().summary();
  const v1::TimingSummary& after = c.after().timing().summary();
  const double change = after.median_s() - before.median_s();
  const double spread = std::max(before.iqr_s(), after.iqr_s());
  const v1::Comparison::LatencyChange expected = std::fabs(change) <= spread ? v1::Comparison::within_variability
                                                 : change < 0                ? v1::Comparison::faster
                                                                             : v1::Comparison::slower;
  if (c.latency_change() == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "saved label " << v1::Comparison::LatencyChange_Name(c.latency_change())
                                       << " (" << c.latency_change_reason() << "), but the rule gives "
                                       << v1::Comparison::LatencyChange_Name(expected) << " for median change "
                                       << change << " s vs larger IQR " << spread << " s";
}

}  // namespace torchscan::e2e
