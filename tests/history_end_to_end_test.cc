// End-to-end: `torchscan-client history NAME` against a real torchscand (issue 16 item 3).
// Three tiny measure jobs named "bench" at revisions r1, r2, r3 (and one named "other", which
// must never appear) make a three-point history: in --json (newest first, revisions,
// summaries), in the terminal (three rows, the sparkline of the three medians) and in
// history.html (three points, each linked to a report page that exists), which then loads in
// headless Chromium with no request and no error (tests/browser/browser_check.py). A rerun
// reuses the report pages. `--against r1` writes a comparison and exits as --fail-on says for
// the label the comparison got (read from comparison.json: no timing verdict is asserted);
// unknown revisions, the newest revision itself, unknown names, bad flags and no daemon are
// exit 2 with messages naming what to fix. A second daemon (whose job ids are the same) writing
// into the same folder gets its own report pages, not the first one's.
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "io/proto_json.h"
#include "proto/report.pb.h"
#include "proto/service.pb.h"
#include "report/history_text.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

constexpr int kBadInput = 2;
constexpr int kGateFailed = 6;

bool IsFile(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// One daemon for the whole suite, with the jobs every test reads (they only read).
class HistoryEndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    daemon_ = new TestDaemon(TempDir("history_state"));  // started: the constructor waits for it to answer
    const std::vector<std::string> measure = {"measure", "--model", "linear", "--min-run-time", "0.05"};
    for (const std::string revision : {"r1", "r2", "r3"}) {
      const CommandResult r = daemon_->Client(
          With(measure, {"--label", "bench", "--revision", revision, "--output", TempDir("measure_" + revision)}));
      ASSERT_EQ(r.exit_code, 0) << r.err;
      ids_.insert(ids_.begin(), SubmittedId(r.err));  // newest first
    }
    const CommandResult other =
        daemon_->Client(With(measure, {"--label", "other", "--revision", "r9", "--output", TempDir("measure_other")}));
    ASSERT_EQ(other.exit_code, 0) << other.err;
    other_id_ = SubmittedId(other.err);
  }
  static void TearDownTestSuite() {
    delete daemon_;
    daemon_ = nullptr;
  }

  static v1::HistoryResponse JsonHistory(const std::vector<std::string>& more = {}) {
    const CommandResult r = daemon_->Client(With({"--json", "history", "bench", "--output", TempDir("json")}, more));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    v1::HistoryResponse history;
    EXPECT_TRUE(ParseJsonStrict(r.out, "history --json", &history).ok()) << r.out;
    return history;
  }

  static TestDaemon* daemon_;
  static std::vector<std::string> ids_;  // bench's jobs, newest first
  static std::string other_id_;
};

TestDaemon* HistoryEndToEnd::daemon_ = nullptr;
std::vector<std::string> HistoryEndToEnd::ids_;
std::string HistoryEndToEnd::other_id_;

TEST_F(HistoryEndToEnd, JsonHoldsTheThreeJobsNewestFirstWithRevisionsAndSummaries) {
  ASSERT_EQ(ids_.size(), 3u);
  const v1::HistoryResponse history = JsonHistory();
  ASSERT_EQ(history.jobs_size(), 3);
  const std::vector<std::string> revisions = {"r3", "r2", "r1"};
  for (int i = 0; i < 3; ++i) {
    const v1::Job& job = history.jobs(i);
    EXPECT_EQ(job.id(), ids_[i]);
    EXPECT_EQ(job.spec().label(), "bench");
    EXPECT_EQ(job.spec().revision(), revisions[i]);
    EXPECT_EQ(job.state(), v1::Job::succeeded);
    ASSERT_TRUE(job.has_summary()) << job.id();
    EXPECT_EQ(job.summary().run(), "measured");
    EXPECT_GT(job.summary().latency().median_s(), 0);
    EXPECT_FALSE(job.summary().machine().empty());
    EXPECT_NE(job.id(), other_id_);
  }
  EXPECT_EQ(history.next_page_token(), "");
  // --limit keeps the newest and says where the rest begins.
  const v1::HistoryResponse newest = JsonHistory({"--limit", "2"});
  ASSERT_EQ(newest.jobs_size(), 2);
  EXPECT_EQ(newest.jobs(0).id(), ids_[0]);
  EXPECT_EQ(newest.jobs(1).id(), ids_[1]);
  EXPECT_NE(newest.next_page_token(), "");
  EXPECT_EQ(JsonHistory({"--state", "failed"}).jobs_size(), 0);
  // `jobs show` names the revision too.
  const CommandResult shown = daemon_->Client({"jobs", "show", ids_[0]});
  EXPECT_TRUE(absl::StrContains(shown.out, "  revision: r3\n")) << shown.out;
}

TEST_F(HistoryEndToEnd, TheTerminalShowsThreeRowsAndTheSparklineOfTheirMedians) {
  const v1::HistoryResponse history = JsonHistory();
  ASSERT_EQ(history.jobs_size(), 3);
  std::vector<double> medians;  // oldest first
  for (int i = 2; i >= 0; --i) medians.push_back(history.jobs(i).summary().latency().median_s());
  const CommandResult r = daemon_->Client({"history", "bench", "--output", TempDir("terminal")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int rows = 0;
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    for (const std::string& id : ids_) rows += absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), id) ? 1 : 0;
    EXPECT_FALSE(absl::StrContains(line, other_id_)) << r.out;
  }
  EXPECT_EQ(rows, 3) << r.out;
  // --table-only: the same table, and no file written nor report fetched.
  const CommandResult table = daemon_->Client({"history", "bench", "--table-only"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out, r.out);
  EXPECT_FALSE(absl::StrContains(table.err, "wrote")) << table.err;
  EXPECT_FALSE(std::filesystem::exists(WorkingDir() + "/torchscan-history-bench"));  // the default --output
  const CommandResult both = daemon_->Client({"history", "bench", "--table-only", "--against", "r1"});
  EXPECT_EQ(both.exit_code, kBadInput);
  EXPECT_TRUE(absl::StrContains(both.err, "--table-only: writes no file, but --against asks for files")) << both.err;
  // ASCII levels unless the test's locale is UTF-8 (client_context.h IsUtf8Locale).
  const std::string ascii = report::Sparkline(medians, /*unicode=*/false);
  const std::string blocks = report::Sparkline(medians, /*unicode=*/true);
  ASSERT_EQ(ascii.size(), 3u);
  EXPECT_TRUE(absl::StrContains(r.out, " " + ascii + " ") || absl::StrContains(r.out, " " + blocks + " "))
      << ascii << " or " << blocks << "\n"
      << r.out;
}

TEST_F(HistoryEndToEnd, HistoryHtmlLinksEachPointToItsReportAndLoadsOfflineInChromium) {
  const std::string dir = TempDir("page");
  const CommandResult r = daemon_->Client({"history", "bench", "--output", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "3 fetched, 0 reused")) << r.err;
  const std::string page = Slurp(dir + "/history.html");
  ASSERT_FALSE(page.empty());
  for (const std::string& id : ids_) {
    EXPECT_TRUE(absl::StrContains(page, "href=\"reports/" + id + ".html\"")) << id;
    EXPECT_TRUE(IsFile(dir + "/reports/" + id + ".html")) << id;
    v1::BenchmarkReport report;
    EXPECT_TRUE(ParseJsonStrict(Slurp(dir + "/reports/" + id + ".json"), id, &report).ok()) << id;
  }
  EXPECT_FALSE(absl::StrContains(page, other_id_));
  // A rerun into the same folder fetches nothing: a finished job's report never changes.
  const CommandResult again = daemon_->Client({"history", "bench", "--output", dir});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(absl::StrContains(again.err, "0 fetched, 3 reused")) << again.err;
  const CommandResult forced = daemon_->Client({"history", "bench", "--output", dir, "--force"});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_TRUE(absl::StrContains(forced.err, "3 fetched, 0 reused")) << forced.err;

  const char* chromium_env = std::getenv("TORCHSCAN_TEST_CHROMIUM");
  const std::string chromium = chromium_env != nullptr ? chromium_env : "/usr/bin/chromium";
  if (::access(chromium.c_str(), X_OK) != 0) GTEST_SKIP() << chromium << " is absent: run scripts/setup.sh";
  const CommandResult browser =
      e2e::Run("/usr/bin/python3", {Runfile("tests/browser/browser_check.py"), "--chromium", chromium, "--screenshots",
                                    TempDir("screenshots"), dir + "/history.html"});
  EXPECT_EQ(browser.exit_code, 0) << browser.out << browser.err;
  EXPECT_TRUE(absl::StrContains(browser.out, "[    OK] HistoryLoadsOfflineWithoutErrors")) << browser.out;
}

// Job ids restart on each daemon: a second daemon's job-000001 is another job than the first
// one's. The same --output folder, pointed at the other daemon, must not reuse the first one's
// report pages (nor link them): they are all fetched again, and it says so.
TEST_F(HistoryEndToEnd, AnotherDaemonsReportPagesAreFetchedAgain) {
  TestDaemon second(TempDir("history_second_state"));
  const CommandResult measured = second.Client({"measure", "--model", "linear", "--min-run-time", "0.05", "--label",
                                                "bench", "--revision", "s1", "--output", TempDir("measure_s1")});
  ASSERT_EQ(measured.exit_code, 0) << measured.err;
  const std::string second_id = SubmittedId(measured.err);
  ASSERT_EQ(second_id, ids_.back()) << "both daemons count from the same first id";
  const std::string dir = TempDir("two_daemons");
  const CommandResult first = daemon_->Client({"history", "bench", "--output", dir});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(absl::StrContains(first.err, "3 fetched, 0 reused")) << first.err;
  const CommandResult other = second.Client({"history", "bench", "--output", dir});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_TRUE(absl::StrContains(other.err, "held report pages of another daemon")) << other.err;
  EXPECT_TRUE(absl::StrContains(other.err, "1 fetched, 0 reused")) << other.err;
  for (const std::string& id : ids_) {
    if (id != second_id) {
      EXPECT_FALSE(IsFile(dir + "/reports/" + id + ".json")) << id << ": the first daemon's page";
    }
  }
  // Back on the first daemon: its pages are fetched again; a rerun on it reuses them.
  const CommandResult back = daemon_->Client({"history", "bench", "--output", dir});
  EXPECT_TRUE(absl::StrContains(back.err, "3 fetched, 0 reused")) << back.err;
  const CommandResult again = daemon_->Client({"history", "bench", "--output", dir});
  EXPECT_TRUE(absl::StrContains(again.err, "0 fetched, 3 reused")) << again.err;
  EXPECT_FALSE(absl::StrContains(again.err, "another daemon")) << again.err;
}

TEST_F(HistoryEndToEnd, AgainstARevisionComparesAndGatesOnTheLabelItGot) {
  const std::string dir = TempDir("against");
  const CommandResult plain = daemon_->Client({"history", "bench", "--against", "r1", "--output", dir});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(absl::StrContains(plain.out, "TorchScan comparison")) << plain.out;
  ASSERT_TRUE(IsFile(dir + "/comparison.html"));
  v1::Comparison comparison;
  ASSERT_TRUE(ParseJsonStrict(Slurp(dir + "/comparison.json"), "comparison.json", &comparison).ok());
  EXPECT_EQ(comparison.output_check().status(), v1::OutputCheck::not_provided);
  EXPECT_TRUE(absl::StrContains(comparison.output_check().message(), ids_[2] + " (revision r1)"))
      << comparison.output_check().message();
  EXPECT_EQ(comparison.before().name(), "revision r1 (" + ids_[2] + ")");
  EXPECT_EQ(comparison.after().name(), "revision r3 (" + ids_[0] + ")");
  const std::string label = v1::Comparison::LatencyChange_Name(comparison.latency_change());
  ASSERT_FALSE(label.empty());
  // The same two runs give the same comparison, so each gate's exit follows that label.
  const std::vector<std::pair<std::string, bool>> gates = {
      {"slower", label == "slower"},
      {"not-faster", label != "faster"},
      {"any-change", label == "faster" || label == "slower"},
  };
  for (const auto& [gate, fails] : gates) {
    const CommandResult r =
        daemon_->Client({"history", "bench", "--against", "r1", "--output", dir, "--fail-on", gate});
    EXPECT_EQ(r.exit_code, fails ? kGateFailed : 0) << label << " --fail-on " << gate << "\n" << r.err;
    v1::Comparison again;
    ASSERT_TRUE(ParseJsonStrict(Slurp(dir + "/comparison.json"), "comparison.json", &again).ok());
    EXPECT_EQ(v1::Comparison::LatencyChange_Name(again.latency_change()), label);
  }
  // --json: the comparison itself.
  const CommandResult json = daemon_->Client({"--json", "history", "bench", "--against", "r2", "--output", dir});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  v1::Comparison printed;
  EXPECT_TRUE(ParseJsonStrict(json.out, "history --against --json", &printed).ok()) << json.out;
}

TEST_F(HistoryEndToEnd, AgainstAnUnknownOrTheNewestRevisionIsRefused) {
  const CommandResult unknown =
      daemon_->Client({"history", "bench", "--against", "r0", "--output", TempDir("unknown")});
  EXPECT_EQ(unknown.exit_code, kBadInput);
  EXPECT_TRUE(
      absl::StrContains(unknown.err, "--against r0: no succeeded job of \"bench\" was measured at that revision"))
      << unknown.err;
  EXPECT_TRUE(absl::StrContains(unknown.err, "(newest revisions: r3, r2, r1)")) << unknown.err;
  EXPECT_FALSE(IsFile(TempDir("unknown") + "/history.html"));  // refused before anything is written
  const CommandResult newest = daemon_->Client({"history", "bench", "--against", "r3", "--output", TempDir("newest")});
  EXPECT_EQ(newest.exit_code, kBadInput);
  EXPECT_TRUE(absl::StrContains(newest.err, "is itself at revision r3: nothing to compare")) << newest.err;
  // r9 is another name's revision.
  EXPECT_EQ(daemon_->Client({"history", "bench", "--against", "r9", "--output", TempDir("r9")}).exit_code, kBadInput);
}

TEST_F(HistoryEndToEnd, BadInputIsExitTwoNamingWhatToFix) {
  const CommandResult unknown = daemon_->Client({"history", "bnech", "--output", TempDir("bnech")});
  EXPECT_EQ(unknown.exit_code, kBadInput);
  EXPECT_TRUE(absl::StrContains(unknown.err, "no job is named \"bnech\"")) << unknown.err;
  EXPECT_TRUE(absl::StrContains(unknown.err, "did you mean \"bench\"?")) << unknown.err;
  const CommandResult empty_revision = daemon_->Client({"history", "bench", "--against", ""});
  EXPECT_EQ(empty_revision.exit_code, kBadInput);
  EXPECT_TRUE(absl::StrContains(empty_revision.err, "--against: the revision is empty")) << empty_revision.err;
  const CommandResult limit = daemon_->Client({"history", "bench", "--limit", "-1"});
  EXPECT_EQ(limit.exit_code, kBadInput);
  EXPECT_TRUE(absl::StrContains(limit.err, "--limit: -1 is negative")) << limit.err;
  const CommandResult state = daemon_->Client({"history", "bench", "--state", "bogus"});
  EXPECT_EQ(state.exit_code, kBadInput);
  EXPECT_TRUE(absl::StrContains(state.err, "--state: \"bogus\" is not one of")) << state.err;
  const CommandResult gate = daemon_->Client({"history", "bench", "--fail-on", "slower"});
  EXPECT_EQ(gate.exit_code, kBadInput);
  EXPECT_TRUE(absl::StrContains(gate.err, "--fail-on: only with --against")) << gate.err;
  // A folder `history` did not write keeps its evidence unless --force.
  const std::string foreign = TempDir("foreign");
  std::ofstream(foreign + "/comparison.json") << "{}";  // e.g. what `compare --output` left there
  const CommandResult kept = daemon_->Client({"history", "bench", "--against", "r1", "--output", foreign});
  EXPECT_EQ(kept.exit_code, kBadInput);
  EXPECT_TRUE(absl::StrContains(kept.err, "--output: " + foreign + "/comparison.json already exists")) << kept.err;
  EXPECT_FALSE(IsFile(foreign + "/history.html"));
  const CommandResult several =
      daemon_->Client({"--daemon", daemon_->address(), "history", "bench", "--output", TempDir("several")});
  EXPECT_EQ(several.exit_code, kBadInput);
  EXPECT_TRUE(absl::StrContains(several.err, "--daemon: this command talks to one daemon")) << several.err;
}

TEST(HistoryWithoutDaemon, IsExitTwoSayingHowToGiveOne) {
  const CommandResult r = e2e::Run(Runfile("client/torchscan-client"), {"history", "bench"});
  EXPECT_EQ(r.exit_code, kBadInput) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "history: no resident daemon was given")) << r.err;
}

}  // namespace
}  // namespace torchscan::e2e
