// `compare --instructions` end to end: two module files saved by Python (tanh once, tanh four
// times), compared by the real client through a real torchscand whose worker counts each
// run under valgrind's callgrind. What is asserted cannot depend on load: the candidate's count
// is larger, the diff's largest increases name tanh, every format shows the diff, a count
// repeats within 0.1 %, and the CI gate on instructions fails the change.
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "io/file_io.h"
#include "io/proto_json.h"
#include "proto/spec_limits.h"
#include "report/report_json.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

const std::string kPython = e2e::ProjectPython();  // the project environment's, with torch
constexpr int kGateFailed = 6;

std::string Read(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  return text.ok() ? *text : "";
}

TEST(InstructionsEndToEnd, MoreWorkCountsMoreAndTheDiffNamesTheOperatorInEveryFormat) {
  const std::string models = TempDir("tanh_models");
  const CommandResult made = e2e::Run(kPython, {Runfile("tests/python/make_tanh_models.py"), models}, 120);
  ASSERT_EQ(made.exit_code, 0) << "needs the project environment's torch (scripts/setup.sh): " << made.err;
  TestDaemon d(TempDir("instructions_daemon"));
  const std::string out = TempDir("instructions_out");
  const CommandResult r = d.Client({"compare", "--baseline", models + "/tanh1.pt", "--candidate", models + "/tanh4.pt",
                                    "--input", "64x256", "--no-check", "--threads", "1", "--min-run-time", "0.05",
                                    "--rounds", "2", "--fixed-length", "--instructions", "--output", out},
                                   900);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  const v1::InstructionCounts& before = c->before().instructions();
  const v1::InstructionCounts& after = c->after().instructions();
  ASSERT_TRUE(before.complete()) << before.DebugString();
  ASSERT_TRUE(after.complete()) << after.DebugString();
  EXPECT_LE(before.spread(), kInstructionSpreadLimit);
  EXPECT_LE(after.spread(), kInstructionSpreadLimit);
  EXPECT_GT(after.instructions(), 2 * before.instructions());  // four tanh against one

  const v1::InstructionDiff& diff = c->instructions();
  ASSERT_TRUE(diff.known()) << diff.unknown_reason();
  EXPECT_DOUBLE_EQ(diff.delta(), after.instructions() - before.instructions());
  EXPECT_GT(diff.relative_change(), 1.0);
  ASSERT_FALSE(diff.increases().empty());
  std::string top;
  for (int i = 0; i < std::min(3, diff.increases_size()); ++i) top += diff.increases(i).name() + "\n";
  EXPECT_TRUE(absl::StrContains(absl::AsciiStrToLower(top), "tanh")) << top;
  const std::string grew = diff.increases(0).name();

  // The summary the client printed, the HTML page, Markdown: each shows the diff.
  EXPECT_TRUE(absl::StrContains(r.out, "instrs")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "instructions per call")) << r.out;
  const std::string html = Read(out + "/comparison.html");
  EXPECT_TRUE(absl::StrContains(html, "id=\"instruction-diff\"")) << "no diff table in comparison.html";
  EXPECT_TRUE(absl::StrContains(html, "Instructions per call (callgrind)"));
  const CommandResult md = d.Client({"render", out + "/comparison.json", "--format", "markdown"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(absl::StrContains(md.out, "**Instructions per call**")) << md.out;
  EXPECT_TRUE(absl::StrContains(md.out, "| function (self, per call) |")) << md.out;
  // The per-run metric joins the deltas like any other.
  bool metric = false;
  for (const v1::MetricDelta& m : c->deltas()) metric = metric || (m.name() == "instructions_per_call" && m.known());
  EXPECT_TRUE(metric) << "instructions_per_call is not among the known deltas";

  // CI on a machine whose wall times cannot be trusted: the saved runs, gated on their counts.
  ASSERT_TRUE(WriteFileAtomic(out + "/before.json", ToJson(c->before())).ok());
  ASSERT_TRUE(WriteFileAtomic(out + "/after.json", ToJson(c->after())).ok());
  const CommandResult gate = d.Client({"compare-reports", out + "/before.json", out + "/after.json", "--output",
                                       out + "/gate", "--fail-on", "slower", "--gate-on", "instructions"});
  EXPECT_EQ(gate.exit_code, kGateFailed) << gate.err;
  EXPECT_TRUE(absl::StrContains(gate.err, "--fail-on slower: the instruction count says slower")) << gate.err;
  const CommandResult reverse = d.Client({"compare-reports", out + "/after.json", out + "/before.json", "--output",
                                          out + "/gate2", "--fail-on", "slower", "--gate-on", "instructions"});
  EXPECT_EQ(reverse.exit_code, 0) << reverse.err;
}

}  // namespace
}  // namespace torchscan::e2e
