// The only end-to-end tests that assert a timing verdict on real timings. They run alone
// (tags = ["exclusive"]: no other Bazel test beside them) and give noise no room: the two
// methods of tests/make_work_module's module do the same computation once and 40 times, so
// the median moves by about 97% while even a loaded machine's IQR stays far below that.
// Anything smaller belongs in a test with synthetic blocks (core/compare_test.cc).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "report/report_json.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

v1::Comparison CompareMethods(const TestDaemon& d, const std::string& module, const std::string& baseline,
                              const std::string& candidate, const std::string& name) {
  const std::string out = TempDir(name);
  const CommandResult r =
      d.Client({"compare", "--torchscript", module, "--method", baseline, "--candidate-method", candidate, "--input",
                "64x64", "--rtol", "0", "--atol", "0", "--min-run-time", "0.5", "--output", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : v1::Comparison();
}

TEST(VerdictEndToEnd, FortyTimesTheWorkIsSlowerAndItsRemovalFaster) {
  const std::string dir = TempDir("work_module");
  ASSERT_EQ(e2e::Run(Runfile("tests/make_work_module"), {dir}).exit_code, 0);
  TestDaemon d(TempDir("verdict"));
  const v1::Comparison faster = CompareMethods(d, dir + "/work.pt", "heavy", "forward", "faster");
  EXPECT_EQ(faster.output_check().status(), v1::OutputCheck::passed) << faster.output_check().message();
  EXPECT_EQ(faster.latency_change(), v1::Comparison::faster) << faster.latency_change_reason();
  const v1::Comparison slower = CompareMethods(d, dir + "/work.pt", "forward", "heavy", "slower");
  EXPECT_EQ(slower.latency_change(), v1::Comparison::slower) << slower.latency_change_reason();
  std::printf(
      "verdict: heavy -> forward %s (%s); forward -> heavy %s (%s)\n",
      v1::Comparison::LatencyChange_Name(faster.latency_change()).c_str(), faster.latency_change_reason().c_str(),
      v1::Comparison::LatencyChange_Name(slower.latency_change()).c_str(), slower.latency_change_reason().c_str());
}

}  // namespace
}  // namespace torchscan::e2e
