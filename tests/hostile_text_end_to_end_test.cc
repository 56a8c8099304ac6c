// A job's own text in a shared daemon's records, end to end with real processes (issue 41): a
// module that fails with an error that is not UTF-8 and carries terminal escape sequences, and
// one that prints the worker's protocol lines.
// Before the daemon spelled such text out (spec/printable_text.h PrintableLine), the 0xFF
// byte made `jobs list` fail for every user ("No message returned for unary request", exit 3)
// until the daemon restarted, and the escapes reached every user's terminal and the log.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

// Whether `text` holds an escape character or a byte that cannot start or continue UTF-8 text
// here (0xFF).
bool HoldsRawBytes(const std::string& text) {
  return absl::StrContains(text, "\x1b") || absl::StrContains(text, "\x07") || absl::StrContains(text, "\xff");
}

TEST(HostileText, AnErrorThatIsNotUtf8LeavesEveryListingWorking) {
  const std::string models = TempDir("hostile_text_models");
  const CommandResult made = e2e::Run(ProjectPython(), {Runfile("tests/python/make_hostile_models.py"), models}, 180);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  TestDaemon d(TempDir("hostile_text_state"));

  const CommandResult failed =
      d.Client({"measure", "--torchscript", models + "/bad_text.pt", "--input", "4x8", "--min-run-time", "0.01"}, 180);
  EXPECT_EQ(failed.exit_code, 3) << failed.err;
  EXPECT_TRUE(absl::StrContains(failed.err, "BADTEXT \\x1B]0;owned\\x07\\x1B[31mred \\xFF")) << failed.err;
  EXPECT_FALSE(HoldsRawBytes(failed.out + failed.err)) << failed.err;
  const std::vector<v1::Job> jobs = ListJobs(d);
  ASSERT_EQ(jobs.size(), 1u);
  const std::string id = jobs[0].id();
  EXPECT_EQ(jobs[0].state(), v1::Job::failed);

  struct Read {
    std::vector<std::string> args;
    int exit_code;  // a watch ends with the job's own: 3, failed
    bool shows_error;
  };
  const std::vector<Read> reads = {{{"jobs", "list"}, 0, false},
                                   {{"--json", "jobs", "list"}, 0, true},
                                   {{"jobs", "show", id}, 0, true},
                                   {{"--json", "jobs", "show", id}, 0, true},
                                   {{"jobs", "watch", id}, 3, true}};
  for (const Read& read : reads) {
    const CommandResult r = d.Client(read.args);
    EXPECT_EQ(r.exit_code, read.exit_code) << absl::StrJoin(read.args, " ") << ": " << r.err;
    EXPECT_FALSE(HoldsRawBytes(r.out + r.err)) << absl::StrJoin(read.args, " ") << ": " << r.out;
    if (read.shows_error) {
      EXPECT_TRUE(absl::StrContains(r.out + r.err, "BADTEXT")) << absl::StrJoin(read.args, " ") << ": " << r.out;
    }
  }
  EXPECT_FALSE(HoldsRawBytes(Slurp(d.state_dir() + ".log")));
  const CommandResult next = d.Client({"measure", "--model", "linear", "--min-run-time", "0.01"}, 180);
  EXPECT_EQ(next.exit_code, 0) << next.err;
}

// What a module prints goes to its job's stderr file, not to the progress channel: before,
// printed "phase ..." lines became phases of the job's timeline (13,415 of them made a 0.05 s
// measure take 116 s).
TEST(HostileText, PrintedProtocolLinesNeverReachTheTimeline) {
  const std::string models = TempDir("forge_models");
  const CommandResult made = e2e::Run(ProjectPython(), {Runfile("tests/python/make_hostile_models.py"), models}, 180);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  TestDaemon d(TempDir("forge_state"));
  const CommandResult measured = d.Client(
      {"measure", "--torchscript", models + "/forge_phase.pt", "--input", "4x8", "--min-run-time", "0.01"}, 180);
  ASSERT_EQ(measured.exit_code, 0) << measured.err;
  const std::vector<v1::Job> jobs = ListJobs(d);
  ASSERT_EQ(jobs.size(), 1u);
  const CommandResult shown = d.Client({"--json", "jobs", "show", jobs[0].id()});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_TRUE(absl::StrContains(shown.out, "\"timeline\"")) << shown.out;
  EXPECT_FALSE(absl::StrContains(shown.out, "forged")) << shown.out;
  EXPECT_FALSE(absl::StrContains(shown.out, "999999")) << shown.out;
  // The prints were kept where a job's diagnostics go.
  EXPECT_TRUE(absl::StrContains(Slurp(d.state_dir() + "/jobs/" + jobs[0].id() + "/worker.stderr"), "phase forged"));
}

}  // namespace
}  // namespace torchscan::e2e
