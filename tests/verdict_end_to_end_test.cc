// The only end-to-end tests that assert a timing verdict on real timings. They run alone
// (tags = ["exclusive"]: no other Bazel test beside them) and give noise no room: the two
// methods of tests/make_work_module's module do the same computation once and 40 times, so
// the median moves by about 97% while even a loaded machine's IQR stays far below that; and
// byte-identical copies are equivalent within 50 %, which no noise here comes near.
// Anything smaller belongs in a test with synthetic blocks (core/compare_test.cc).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "report/report_json.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"
#include "tests/e2e_timeline.h"

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

// Two files, as users compare them, through the daemon's default decision-driven compare:
// work.pt against a byte-identical copy under another name whose method does 40 times the
// work is decided slower over build pairs; against the copy's own forward, at a smallest
// change of 50 %, it is decided equivalent (no change that large). Either outcome needs ten
// build pairs or more, each with both files built again.
TEST(VerdictEndToEnd, TwoFilesAreDecidedOverBuildPairs) {
  const std::string dir = TempDir("two_files");
  ASSERT_EQ(e2e::Run(Runfile("tests/make_work_module"), {dir}).exit_code, 0);
  std::filesystem::copy_file(dir + "/work.pt", dir + "/work_copy.pt");
  TestDaemon d(TempDir("two_files_daemon"));
  for (const auto& [method, smallest, claim] : {std::tuple{"heavy", "0.05", v1::PairedEvidence::slower},
                                                std::tuple{"forward", "0.5", v1::PairedEvidence::equivalent}}) {
    const std::string out = TempDir(std::string("two_files_") + method);
    const CommandResult r = d.Client({"compare", "--baseline", dir + "/work.pt", "--candidate", dir + "/work_copy.pt",
                                      "--candidate-method", method, "--input", "64x64", "--rtol", "0", "--atol", "0",
                                      "--min-run-time", "0.05", "--smallest-change", smallest, "--output", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
    ASSERT_TRUE(c.ok()) << c.status();
    const v1::PairedEvidence& p = c->evidence().paired();
    EXPECT_EQ(p.claim(), claim) << method << ": " << p.stop_reason() << "; " << p.note();
    EXPECT_GE(p.unit_ratios_size(), 10) << p.stop_reason();
    EXPECT_EQ(c->before().settings().timing().build_pairs(), p.unit_ratios_size());
    EXPECT_EQ(p.stop_reason().rfind("decided (", 0), 0u) << p.stop_reason();
    EXPECT_DOUBLE_EQ(p.min_claimed_change(), std::stod(smallest));
    // The summary leads with the one sentence that says the claim and the label's why.
    const std::string lead =
        claim == v1::PairedEvidence::slower ? "  verdict   " : "  verdict   No change larger than 50.0%";
    EXPECT_NE(r.out.find(lead), std::string::npos) << r.out;
    if (claim == v1::PairedEvidence::slower) {
      EXPECT_NE(r.out.find("% slower (90.0% interval "), std::string::npos) << r.out;
    }
    // One "timing build pairs" phase, after the planned rounds and before the diagnostic passes.
    const std::vector<v1::PhaseSpan> pairs = Spans(c->timeline(), "timing build pairs");
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_GE(pairs[0].start_s(), LastEnd(Spans(c->timeline(), "timing baseline")));
    EXPECT_GE(pairs[0].start_s(), LastEnd(Spans(c->timeline(), "timing candidate")));
    EXPECT_LE(pairs[0].end_s(), Spans(c->timeline(), "check").back().start_s());  // the check after timing
    // Each later build pair: its side built (and warmed) last, drawn at random, leads its first
    // round; each round has one leader; and every later pair times as many rounds, an even
    // number from 4 to 32 (core/round_plan.h).
    std::map<int, int> rounds_per_unit;
    std::map<int, std::map<int, int>> leaders;  // unit -> round -> how many runs led it
    for (const auto* run : {&c->before(), &c->after()})
      for (const v1::TimingRound& round : run->timing().rounds()) {
        if (run == &c->before()) ++rounds_per_unit[round.unit()];
        if (round.unit() >= 2 && round.position() == "first") ++leaders[round.unit()][round.round()];
      }
    ASSERT_GE(leaders.size(), 2u) << method;
    for (const auto& [unit, rounds] : leaders)
      for (const auto& [round, led] : rounds) EXPECT_EQ(led, 1) << method << " pair " << unit << " round " << round;
    const int per_pair = rounds_per_unit[2];
    EXPECT_TRUE(per_pair >= 4 && per_pair <= 32 && per_pair % 2 == 0) << per_pair;
    for (const auto& [unit, rounds] : rounds_per_unit) {
      if (unit >= 2) {
        EXPECT_EQ(rounds, per_pair) << method << " pair " << unit;
      }
    }
    std::printf("two files, %s: %s over %d build pairs (%s)\n", method,
                v1::PairedEvidence::Claim_Name(p.claim()).c_str(), p.unit_ratios_size(), p.stop_reason().c_str());
  }
}

// The time cap is the whole comparison's: with --max-time 4 and planned rounds that time 1 s
// of each run,
// a few build pairs fit, fewer than the ten an interval needs, so it stops undecided at the
// cap, and its report (builds, timing, profile, memory, check) ends within 4 s of the job's
// start in the worker: the work after timing was kept in reserve.
TEST(VerdictEndToEnd, TheTimeCapBoundsTheWholeComparison) {
  const std::string dir = TempDir("cap");
  ASSERT_EQ(e2e::Run(Runfile("tests/make_work_module"), {dir}).exit_code, 0);
  std::filesystem::copy_file(dir + "/work.pt", dir + "/work_copy.pt");
  TestDaemon d(TempDir("cap_daemon"));
  const std::string out = TempDir("cap_out");
  const CommandResult r =
      d.Client({"compare", "--baseline", dir + "/work.pt", "--candidate", dir + "/work_copy.pt", "--input", "64x64",
                "--rtol", "0", "--atol", "0", "--min-run-time", "1", "--max-time", "4", "--output", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  const v1::PairedEvidence& p = c->evidence().paired();
  EXPECT_EQ(p.stop_reason().rfind("undecided at the time cap: ", 0), 0u) << p.stop_reason();
  EXPECT_NE(p.stop_reason().find("(max_time_s 4, kept "), std::string::npos) << p.stop_reason();
  EXPECT_EQ(p.claim(), v1::PairedEvidence::no_claim) << p.stop_reason();
  EXPECT_GE(c->before().settings().timing().build_pairs(), 2) << "room for some build pairs: " << p.stop_reason();
  const double end_s = LastEnd({c->timeline().spans().begin(), c->timeline().spans().end()});
  EXPECT_LE(end_s, 4.0) << p.stop_reason();
  std::printf("cap 4 s: %d build pairs, comparison ended at %.2f s (%s)\n",
              c->before().settings().timing().build_pairs(), end_s, p.stop_reason().c_str());
}

// A machine busy beside the compare: spinning processes on every CPU but one, and more, so that
// others use far more than a 5 % limit (--max-other-cpu-share 0.05) of the job's CPUs in every
// build pair. 40 times the work would be claimed slower on any machine, yet every pair is left
// out and the compare ends with no claim, naming the share (core/build_pair_decision.h).
TEST(VerdictEndToEnd, ACompareTimedUnderLoadMakesNoClaimAndSaysWhy) {
  const std::string dir = TempDir("loaded");
  ASSERT_EQ(e2e::Run(Runfile("tests/make_work_module"), {dir}).exit_code, 0);
  std::filesystem::copy_file(dir + "/work.pt", dir + "/work_copy.pt");
  TestDaemon d(TempDir("loaded_daemon"));
  std::vector<pid_t> spinners;
  for (unsigned i = 0; i < std::max(2u, std::thread::hardware_concurrency()); ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      for (volatile unsigned long n = 0;; n = n + 1) {
      }
    }
    spinners.push_back(pid);
  }
  const std::string out = TempDir("loaded_out");
  const CommandResult r = d.Client({"compare",
                                    "--baseline",
                                    dir + "/work.pt",
                                    "--candidate",
                                    dir + "/work_copy.pt",
                                    "--candidate-method",
                                    "heavy",
                                    "--input",
                                    "64x64",
                                    "--rtol",
                                    "0",
                                    "--atol",
                                    "0",
                                    "--min-run-time",
                                    "0.05",
                                    "--max-time",
                                    "6",
                                    "--max-other-cpu-share",
                                    "0.05",
                                    "--output",
                                    out});
  for (pid_t pid : spinners) kill(pid, SIGKILL);
  for (pid_t pid : spinners) waitpid(pid, nullptr, 0);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  const v1::PairedEvidence& p = c->evidence().paired();
  EXPECT_EQ(p.claim(), v1::PairedEvidence::no_claim) << p.note();
  EXPECT_EQ(p.note().rfind("no claim: others used ", 0), 0u) << p.note();
  EXPECT_NE(p.note().find("(max_other_cpu_share 0.05): rerun on a quieter machine"), std::string::npos) << p.note();
  EXPECT_GT(2 * p.discarded_build_pairs(), p.unit_ratios_size()) << p.note();
  EXPECT_DOUBLE_EQ(c->before().settings().timing().max_other_cpu_share(), 0.05);
  for (const v1::TimingRound& round : c->after().timing().rounds())
    EXPECT_GT(round.load().interval_s(), 0) << "round " << round.round();
  EXPECT_NE(r.out.find("No paired claim (no claim: others used "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace torchscan::e2e
