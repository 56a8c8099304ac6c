// ConcurrentRss with real torchscan_rss_child processes: two children at once give the same
// peak RSS as a lone child of the same workload, their spans overlap (they ran at once), and
// a ConcurrentRss dropped before Join kills its children. No timing is asserted: only the
// order of the spans and the memory figures.
#include "experiment/concurrent_rss.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace torchscan::experiment {
namespace {

// Runfiles: bazel test runs in the workspace's runfiles directory.
constexpr char kChild[] = "passes/torchscan_rss_child";
constexpr char kFakeChild[] = "passes/fake_rss_child";

// The tolerance between a concurrent child's VmHWM and a lone one's, as a share of the lone
// one. The same child binary building the same workload with the same threads and calls maps
// the same libraries and makes the same allocations, so its peak is close to deterministic:
// what varies is page-granular (glibc malloc's trimming and arena placement, ASLR shifting
// what lands on a page boundary, the kernel's fault-around of file pages), a few hundred KiB
// on a peak of 100+ MiB (measured here: lone children of the linear workload, repeated, spread
// by under 1 %). 3 % allows that noise several times over, and is still far below what a
// figure that concurrency had changed would show: the two children's peaks summed (100 %),
// or a child that saw the other's allocations.
constexpr double kRelativeTolerance = 0.03;

v1::WorkloadSpec LinearSpec() {
  v1::WorkloadSpec spec;
  spec.mutable_model()->set_builtin(v1::ModelSpec::linear);
  return spec;
}

passes::RssTrialOptions Options(double timeout_s) {
  passes::RssTrialOptions o;
  o.calls = 100;
  o.timeout_s = timeout_s;
  o.intra_op_threads = 1;
  o.inter_op_threads = 1;
  return o;
}

TEST(ConcurrentRss, TwoChildrenAtOnceReportTheLoneChildsPeak) {
  const v1::MetricResult lone = passes::MeasurePeakRss(LinearSpec(), kChild, Options(120));
  ASSERT_TRUE(lone.has_value()) << lone.DebugString();

  PhaseTimeline timeline;
  std::vector<std::string> announced;
  ConcurrentRss rss({{"baseline", LinearSpec()}, {"candidate", LinearSpec()}}, kChild, Options(120), timeline,
                    [&](const std::string& phase) { announced.push_back(phase); });
  const std::vector<v1::MetricResult> concurrent = rss.Join();
  EXPECT_EQ(announced, (std::vector<std::string>{"rss baseline", "rss candidate"}));
  ASSERT_EQ(concurrent.size(), 2u);
  for (const v1::MetricResult& m : concurrent) {
    ASSERT_TRUE(m.has_value()) << m.DebugString();
    EXPECT_TRUE(m.complete());
    EXPECT_EQ(m.scope(), lone.scope());
    EXPECT_LE(std::abs(m.value() - lone.value()), kRelativeTolerance * lone.value())
        << "concurrent " << m.value() << " bytes, lone " << lone.value() << " bytes";
    std::printf("peak RSS of the linear child: lone %.2f MiB, concurrent %.2f MiB (%+.2f %%)\n",
                lone.value() / (1 << 20), m.value() / (1 << 20), 100 * (m.value() / lone.value() - 1));
  }

  // They ran at once: each child's span began before the other's ended.
  const v1::Timeline t = timeline.Snapshot();
  ASSERT_EQ(t.spans_size(), 2);
  EXPECT_EQ(t.spans(0).phase(), "rss baseline");
  EXPECT_EQ(t.spans(1).phase(), "rss candidate");
  for (const v1::PhaseSpan& span : t.spans()) EXPECT_TRUE(span.concurrent()) << span.phase();
  EXPECT_LT(t.spans(1).start_s(), t.spans(0).end_s());
  EXPECT_LT(t.spans(0).start_s(), t.spans(1).end_s());
  EXPECT_TRUE(rss.Join().empty());  // once
}

class FakeChildMode {
 public:
  explicit FakeChildMode(const char* mode) { setenv("FAKE_RSS_CHILD_MODE", mode, 1); }
  ~FakeChildMode() { unsetenv("FAKE_RSS_CHILD_MODE"); }
};

// A job that fails before Join (a build error) drops its ConcurrentRss: the children, which
// would hang for 10 minutes, are killed, and their spans end.
TEST(ConcurrentRss, DroppedBeforeJoinKillsItsChildren) {
  FakeChildMode mode("hang");
  PhaseTimeline timeline;
  const auto start = std::chrono::steady_clock::now();
  {
    ConcurrentRss rss({{"baseline", LinearSpec()}, {"candidate", LinearSpec()}}, kFakeChild, Options(300), timeline,
                      nullptr);
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(elapsed, 150.0);  // half the timeout: the cancel, not the timeout, ended them
  const v1::Timeline t = timeline.Snapshot();
  ASSERT_EQ(t.spans_size(), 2);
  const double later = timeline.Snapshot().spans(0).end_s();
  EXPECT_EQ(t.spans(0).end_s(), later);  // ended: no longer growing with each snapshot
}

// Every child is forked on the constructing thread (the contract that keeps forks away from
// a thread inside LibTorch: passes/peak_rss.h, RssTrial), and dies with it (PR_SET_PDEATHSIG
// follows the forking thread). So children of a ConcurrentRss built on a thread that then
// ends are killed at once, although their awaiting threads live on; had the awaiting threads
// forked them (the design that hung a worker in OpenBLAS), they would hang on to the timeout.
TEST(ConcurrentRss, ChildrenAreForkedOnTheConstructingThread) {
  FakeChildMode mode("hang");
  PhaseTimeline timeline;
  std::unique_ptr<ConcurrentRss> rss;
  const auto start = std::chrono::steady_clock::now();
  std::thread([&] {
    rss = std::make_unique<ConcurrentRss>(std::vector<ConcurrentRss::Trial>{{"baseline", LinearSpec()}}, kFakeChild,
                                          Options(300), timeline, nullptr);
  }).join();  // the forking thread ends here
  const std::vector<v1::MetricResult> metrics = rss->Join();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 150.0);
  ASSERT_EQ(metrics.size(), 1u);
  EXPECT_FALSE(metrics[0].has_value());
  ASSERT_EQ(metrics[0].diagnostics_size(), 1);
  EXPECT_NE(metrics[0].diagnostics(0).find("killed by signal 9"), std::string::npos) << metrics[0].diagnostics(0);
}

// Failures stay per trial: a child that fails leaves its metric unknown with the reason.
TEST(ConcurrentRss, EachTrialKeepsItsOwnFailure) {
  FakeChildMode mode("fail");
  PhaseTimeline timeline;
  ConcurrentRss rss({{"measurement", LinearSpec()}}, kFakeChild, Options(60), timeline, nullptr);
  const std::vector<v1::MetricResult> metrics = rss.Join();
  ASSERT_EQ(metrics.size(), 1u);
  EXPECT_FALSE(metrics[0].has_value());
  ASSERT_EQ(metrics[0].diagnostics_size(), 1);
  EXPECT_NE(metrics[0].diagnostics(0).find("exited with status 3"), std::string::npos) << metrics[0].diagnostics(0);
}

}  // namespace
}  // namespace torchscan::experiment
