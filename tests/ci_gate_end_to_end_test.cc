// End-to-end: the CI gate (client/verdict_gate.h) through the real client. compare-reports of
// saved reports whose verdict is fixed by their blocks (tests/fixtures: no timing is measured,
// so the verdicts hold on a busy machine) exits 6 exactly when --fail-on matches, for faster,
// slower, within_variability and unavailable; a real `compare` with a failing output check
// exits 1 whatever the gate; --gate-on claim reads the paired claim (none after one pass:
// unavailable); bad gate words are exit 2 naming the flag.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "io/file_io.h"
#include "io/proto_json.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"
#include "tests/fixtures/evidence_fixtures.h"

namespace torchscan::e2e {
namespace {

constexpr int kGateFailed = 6;

// The real client, with no daemon given: compare-reports needs none, compare starts its own.
struct TestClient {
  CommandResult Run(const std::vector<std::string>& args) const {
    return torchscan::e2e::Run(Runfile("client/torchscan-client"), args);
  }
};

// A saved report of 20 blocks whose median is near `base_s` (steps of 0.1 us: IQR ~1 us).
std::string SavedReport(const std::string& dir, const std::string& name, double base_s) {
  const std::string path = dir + "/" + name + ".json";
  EXPECT_TRUE(WriteFileAtomic(path, ToJson(fixtures::Report(name, 20, base_s, 1e-7))).ok());
  return path;
}

struct Case {
  std::string after;    // which saved report is the candidate
  std::string verdict;  // the label it gets
};

TEST(CiGateEndToEnd, CompareReportsExitsSixExactlyWhenTheGateMatchesTheLabel) {
  const std::string dir = TempDir("gate_reports");
  const std::string before = SavedReport(dir, "before", 100e-6);
  v1::BenchmarkReport other_machine = fixtures::Report("elsewhere", 20, 100e-6, 1e-7);
  other_machine.mutable_environment()->set_cpu_model("another CPU");
  other_machine.mutable_environment()->set_libtorch_version("2.1.0");
  ASSERT_TRUE(WriteFileAtomic(dir + "/elsewhere.json", ToJson(other_machine)).ok());
  const std::map<std::string, std::string> after = {
      {"faster", SavedReport(dir, "faster", 50e-6)},
      {"slower", SavedReport(dir, "slower", 200e-6)},
      {"within_variability", SavedReport(dir, "within", 100.3e-6)},
      {"unavailable", dir + "/elsewhere.json"},
  };
  // gate -> the labels it fails
  const std::map<std::string, std::vector<std::string>> fails = {
      {"slower", {"slower"}},
      {"not-faster", {"slower", "within_variability", "unavailable"}},
      {"any-change", {"faster", "slower"}},
  };
  TestClient client;
  for (const auto& [label, path] : after) {
    const CommandResult plain = client.Run({"--json", "compare-reports", before, path});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    ASSERT_TRUE(absl::StrContains(plain.out, "\"latency_change\": \"" + label + "\"")) << label << plain.out;
    for (const auto& [gate, failing] : fails) {
      const bool should_fail = std::find(failing.begin(), failing.end(), label) != failing.end();
      const CommandResult r = client.Run({"compare-reports", before, path, "--fail-on", gate});
      EXPECT_EQ(r.exit_code, should_fail ? kGateFailed : 0) << label << " --fail-on " << gate << "\n" << r.err;
      if (should_fail) {
        EXPECT_TRUE(absl::StrContains(r.err, "--fail-on " + gate + ": the label says " + label + " (exit 6)")) << r.err;
      }
    }
  }
  // Saved reports have no paired rounds: the claim is unavailable.
  EXPECT_EQ(client.Run({"compare-reports", before, after.at("slower"), "--fail-on", "slower", "--gate-on", "claim"})
                .exit_code,
            0);
  const CommandResult claim =
      client.Run({"compare-reports", before, after.at("faster"), "--fail-on", "not-faster", "--gate-on", "claim"});
  EXPECT_EQ(claim.exit_code, kGateFailed);
  EXPECT_TRUE(absl::StrContains(claim.err, "the paired claim says unavailable")) << claim.err;
}

TEST(CiGateEndToEnd, BadGateWordsAreBadInputNamingTheFlag) {
  const std::string dir = TempDir("gate_bad");
  const std::string report = SavedReport(dir, "r", 100e-6);
  TestClient client;
  const CommandResult fail_on = client.Run({"compare-reports", report, report, "--fail-on", "faster"});
  EXPECT_EQ(fail_on.exit_code, 2);
  EXPECT_TRUE(
      absl::StrContains(fail_on.err, "--fail-on: \"faster\" is not a gate; use slower, not-faster or any-change"))
      << fail_on.err;
  const CommandResult gate_on =
      client.Run({"compare-reports", report, report, "--fail-on", "slower", "--gate-on", "x"});
  EXPECT_EQ(gate_on.exit_code, 2);
  EXPECT_TRUE(absl::StrContains(gate_on.err, "--gate-on: \"x\"")) << gate_on.err;
}

// A real comparison through a private daemon: a failed output check is exit 1 whatever the
// gate; one pass (--rounds 1) has no paired claim, so a claim gate reads unavailable.
TEST(CiGateEndToEnd, ACompareWithAFailedCheckIsExitOneWhateverTheGate) {
  TestClient client;
  const std::vector<std::string> compare = {"compare", "--model", "linear", "--min-run-time", "0.02", "--rounds", "1"};
  const CommandResult failed =
      client.Run(With(compare, {"--candidate-dtype", "bfloat16", "--rtol", "0", "--atol", "0", "--fail-on",
                                "any-change", "--output", TempDir("gate_failed")}));
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  const CommandResult unclaimed = client.Run(With(
      compare, {"--no-check", "--fail-on", "not-faster", "--gate-on", "claim", "--output", TempDir("gate_claim")}));
  EXPECT_EQ(unclaimed.exit_code, kGateFailed) << unclaimed.err;
  EXPECT_TRUE(absl::StrContains(unclaimed.err, "--fail-on not-faster: the paired claim says unavailable"))
      << unclaimed.err;
}

}  // namespace
}  // namespace torchscan::e2e
