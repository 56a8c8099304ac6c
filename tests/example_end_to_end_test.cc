// Runs the real example through torchscan-client and its private daemon (as
// scripts/benchmark_comparison.sh does) and
// checks what it wrote: a comparison that loads back strictly, a passed check, a label by the
// guide's rule (which label depends on the machine's load: tests/verdict_end_to_end_test.cc
// asserts verdicts, alone), every raw block kept, diagnostics present, the run timed first by
// the timeline's timing spans (--reverse: the candidate); and bad flags.
#include <sys/wait.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "report/report_json.h"
#include "tests/e2e_support.h"
#include "tests/e2e_timeline.h"
#include "tests/label_rule.h"

namespace torchscan {
namespace {

using e2e::Runfile;

std::string OutputDir(const std::string& name) { return e2e::TempDir(name); }

// Runs `torchscan-client example` (a private daemon) with space-separated `flags`; returns
// its exit code, stderr in `err`.
int RunExample(const std::string& flags, std::string* err = nullptr) {
  std::vector<std::string> args = {"example"};
  std::istringstream words(flags);
  for (std::string w; words >> w;) args.push_back(w);
  const e2e::CommandResult r = e2e::Run(Runfile("client/torchscan-client"), args);
  if (err) *err = r.err;
  return r.exit_code;
}

// From the comparison's timeline: `first`'s one timing span ended before `second`'s began,
// each holding its run's timed blocks (so neither is a stray label of the other).
void ExpectTimedFirst(const v1::Comparison& c, const std::string& first, const std::string& second) {
  const std::vector<v1::PhaseSpan> a = e2e::Spans(c.timeline(), "timing " + first);
  const std::vector<v1::PhaseSpan> b = e2e::Spans(c.timeline(), "timing " + second);
  ASSERT_EQ(a.size(), 1u) << c.timeline().DebugString();
  ASSERT_EQ(b.size(), 1u) << c.timeline().DebugString();
  EXPECT_LE(a[0].end_s(), b[0].start_s()) << c.timeline().DebugString();
  const v1::BenchmarkReport& first_run = first == "baseline" ? c.before() : c.after();
  const v1::BenchmarkReport& second_run = first == "baseline" ? c.after() : c.before();
  EXPECT_GE(a[0].end_s() - a[0].start_s(), first_run.timing().timed_total_s());
  EXPECT_GE(b[0].end_s() - b[0].start_s(), second_run.timing().timed_total_s());
}

TEST(ExampleEndToEnd, LinearComparisonHasPassedCheckEveryBlockAndTheGuideLabel) {
  const std::string out = OutputDir("linear");
  ASSERT_EQ(RunExample("--model linear --device cpu --rss --min-run-time 0.05 --output " + out), 0);
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->output_check().status(), v1::OutputCheck::passed);
  EXPECT_TRUE(c->compatibility().compatible());
  EXPECT_TRUE(e2e::LabelFollowsTheGuideRule(*c));
  EXPECT_NE(c->output_check().message().find("rtol=0.0001, atol=1e-05"), std::string::npos)  // stated by the job
      << c->output_check().message();
  for (const v1::BenchmarkReport* r : {&c->before(), &c->after()}) {
    EXPECT_EQ(r->timing().blocks_size(), r->timing().summary().block_count());
    EXPECT_GE(r->timing().blocks_size(), 10);
    EXPECT_EQ(r->work_unit(), "samples");
    EXPECT_EQ(r->work_units(), 32);
    EXPECT_EQ(r->settings().threads().intra_op(), 1);
    EXPECT_EQ(r->settings().order(), "baseline_first");
    ASSERT_TRUE(r->has_profile());
    EXPECT_TRUE(r->profile().flops_per_call().complete());
    bool rss = false, tensor_peak = false;
    for (const v1::MetricResult& m : r->totals()) {
      rss |= m.name() == "peak_rss_bytes" && m.has_value();
      tensor_peak |= m.name() == "tensor_peak_bytes" && m.has_value();
    }
    EXPECT_TRUE(rss && tensor_peak) << r->name();
  }
  EXPECT_EQ(c->before().workload().at("execution_mode"), "per_sample");
  EXPECT_EQ(c->after().workload().at("execution_mode"), "batch");
  ExpectTimedFirst(*c, "baseline", "candidate");  // without --reverse
}

TEST(ExampleEndToEnd, ReverseTimesTheCandidateFirst) {
  const std::string out = OutputDir("reverse");
  ASSERT_EQ(RunExample("--reverse --min-run-time 0.02 --output " + out), 0);
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->before().settings().order(), "candidate_first");
  EXPECT_EQ(c->before().name(), "baseline");
  // Which run was timed first, from the runs' own timing spans: the candidate's ended before
  // the baseline's began.
  ExpectTimedFirst(*c, "candidate", "baseline");
}

TEST(ExampleEndToEnd, CompareTwoRunsInCppWritesAPassedComparison) {
  const std::string out = OutputDir("two_runs");
  ASSERT_EQ(std::system(("mkdir -p " + out + " && " + Runfile("benchmarks/compare_two_runs_example") + " " + out +
                         " > /dev/null")
                            .c_str()),
            0);
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->output_check().status(), v1::OutputCheck::passed);
  EXPECT_TRUE(e2e::LabelFollowsTheGuideRule(*c));
  EXPECT_TRUE(c->before().has_profile());
  EXPECT_EQ(c->before().settings().threads().intra_op(), 1);
}

TEST(ExampleEndToEnd, BadFlagsNameTheFlag) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--model gpt2 --output " + OutputDir("bad"), "--model"},
      {"--threads 0 --output " + OutputDir("bad"), "--threads"},
      {"--min-run-time -1 --output " + OutputDir("bad"), "--min-run-time"},
      {"--device mps --output " + OutputDir("bad"), "device"},
      {"--model linear", "--output"},
      {"--output /proc/forbidden/x", "--output"},
  };
  for (const auto& [flags, named] : cases) {
    std::string err;
    const int code = RunExample(flags, &err);
    EXPECT_NE(code, 0) << flags;
    EXPECT_NE(err.find(named), std::string::npos) << flags << ": " << err;
  }
}

}  // namespace
}  // namespace torchscan
