#include "report/load_text.h"

#include <gtest/gtest.h>

namespace torchscan::report {
namespace {

v1::Timing WithLoad(double share) {
  v1::Timing t;
  v1::TimingLoad* l = t.mutable_load();
  l->set_other_cpu_share(share);
  l->set_interval_s(1.5);
  l->set_cpus("0-1");
  l->set_cpu_count(2);
  l->set_loadavg_1m_start(0.5);
  l->set_loadavg_1m_end(0.75);
  return t;
}

TEST(DescribeTimingLoad, NamesTheShareTheCpusAndTheLoadAverages) {
  EXPECT_EQ(DescribeTimingLoad(WithLoad(0.384)), "others used 38% of CPUs 0-1; 1-min load 0.50 to 0.75");
  EXPECT_EQ(DescribeTimingLoad(WithLoad(0.001)), "others used <1% of CPUs 0-1; 1-min load 0.50 to 0.75");
  EXPECT_EQ(DescribeTimingLoad(WithLoad(0)), "others used 0% of CPUs 0-1; 1-min load 0.50 to 0.75");
}

TEST(DescribeTimingLoad, EmptyWhenNothingWasSampled) {
  EXPECT_EQ(DescribeTimingLoad(v1::Timing()), "");
  v1::Timing t = WithLoad(0.5);
  t.mutable_load()->set_interval_s(0);
  EXPECT_EQ(DescribeTimingLoad(t), "");
}

}  // namespace
}  // namespace torchscan::report
