// `torchscan-client --json measure|compare` as a CI script reads it: stdout is one JSON
// document (proto/service.proto JobCommandOutput) parsed strictly, with nothing before or after
// it, whatever the outcome: the exit code, and per daemon the job id and state, its label, the
// files written, the latency label and check status, the evidence itself or the error.
// Everything asserted is checked against an independent source: the client's exit status and
// stderr, the daemon's own job record (`jobs show`) and the files on disk. No timing verdict
// is asserted: the label is compared with the saved comparison's, whatever it is.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "google/protobuf/util/message_differencer.h"
#include "io/proto_json.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

using google::protobuf::util::MessageDifferencer;

// stdout parsed strictly as the one document; a gtest failure (and an empty message) if it is
// not exactly one JSON object and a newline.
v1::JobCommandOutput ParseOutput(const CommandResult& r) {
  v1::JobCommandOutput out;
  EXPECT_EQ(r.out.rfind("{", 0), 0u) << "stdout must start with the document: " << r.out.substr(0, 200);
  EXPECT_TRUE(r.out.size() >= 2 && r.out.substr(r.out.size() - 2) == "}\n") << "and end with it: " << r.out;
  const absl::Status parsed = ParseJsonStrict(r.out, "stdout", &out);
  EXPECT_TRUE(parsed.ok()) << parsed;
  EXPECT_EQ(out.exit_code(), r.exit_code);  // the document states the status the client exits with
  return out;
}

// `path` as the client named it, from the test's working folder (relative paths are its own).
std::string FromWorkingDir(const std::string& path) {
  return path.empty() || path[0] == '/' ? path : WorkingDir() + "/" + path;
}

void ExpectSameMessage(const google::protobuf::Message& a, const google::protobuf::Message& b) {
  std::string diff;
  MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differ.Compare(a, b)) << diff;
}

TEST(JsonOutputEndToEnd, ACompareOnAResidentDaemonGivesJobIdLabelFilesLabelAndCheck) {
  TestDaemon d(TempDir("compare"));
  const std::string out = TempDir("compare_out");
  const CommandResult r = d.Client({"--json", "compare", "--model", "linear", "--rtol", "1e-4", "--atol", "1e-5",
                                    "--label", "ci run 7", "--min-run-time", "0.02", "--output", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const v1::JobCommandOutput doc = ParseOutput(r);
  ASSERT_EQ(doc.daemons_size(), 1);
  const v1::DaemonJobOutput& run = doc.daemons(0);
  EXPECT_EQ(run.daemon(), d.address());
  EXPECT_EQ(run.error(), "");

  // The job: the id the client announced on stderr, as the daemon records it.
  EXPECT_EQ(run.job().id(), SubmittedId(r.err));
  const v1::Job recorded = ShowJob(d, run.job().id());
  EXPECT_EQ(run.job().state(), v1::Job::succeeded);
  EXPECT_EQ(recorded.state(), v1::Job::succeeded);
  EXPECT_EQ(run.job().spec().label(), "ci run 7");
  EXPECT_EQ(run.job().latency_change(), recorded.latency_change());
  EXPECT_EQ(run.job().output_check(), "passed");

  // The files: where they are, and what they hold is the document's evidence.
  EXPECT_EQ(run.json_path(), out + "/comparison.json");
  EXPECT_EQ(run.html_path(), out + "/comparison.html");
  EXPECT_TRUE(std::filesystem::is_regular_file(run.html_path()));
  absl::StatusOr<v1::Comparison> saved = report::LoadComparison(run.json_path());
  ASSERT_TRUE(saved.ok()) << saved.status();
  ExpectSameMessage(run.result().comparison(), *saved);
  EXPECT_EQ(run.result().comparison().label(), "ci run 7");
  EXPECT_EQ(v1::Comparison::LatencyChange_Name(saved->latency_change()), run.job().latency_change());
  EXPECT_EQ(saved->output_check().status(), v1::OutputCheck::passed);
}

TEST(JsonOutputEndToEnd, AMeasureOnAPrivateDaemonWithoutOutputNamesTheFolderItChose) {
  const CommandResult r = e2e::Run(Runfile("client/torchscan-client"),
                                   {"--json", "measure", "--model", "linear", "--min-run-time", "0.02"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const v1::JobCommandOutput doc = ParseOutput(r);
  ASSERT_EQ(doc.daemons_size(), 1);
  const v1::DaemonJobOutput& run = doc.daemons(0);
  EXPECT_EQ(run.daemon().rfind("unix:", 0), 0u) << run.daemon();  // the private daemon's own socket
  EXPECT_EQ(run.job().id(), SubmittedId(r.err));
  EXPECT_EQ(run.json_path(), "./torchscan-" + run.job().id() + "/report.json");  // as stderr says
  EXPECT_NE(r.err.find("wrote " + run.json_path()), std::string::npos) << r.err;
  absl::StatusOr<v1::BenchmarkReport> saved = report::LoadReport(FromWorkingDir(run.json_path()));
  ASSERT_TRUE(saved.ok()) << saved.status();
  ExpectSameMessage(run.result().report(), *saved);
  EXPECT_TRUE(std::filesystem::is_regular_file(FromWorkingDir(run.html_path())));
}

TEST(JsonOutputEndToEnd, AFailedCheckAndARefusedJobAreDocumentsToo) {
  TestDaemon d(TempDir("failures"));
  // bfloat16 against float32 with zero tolerance: the check fails, both runs are kept, exit 1.
  const CommandResult failed =
      d.Client({"--json", "compare", "--model", "linear", "--candidate-dtype", "bfloat16", "--rtol", "0", "--atol", "0",
                "--min-run-time", "0.02", "--output", TempDir("failed_out")});
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  const v1::JobCommandOutput check = ParseOutput(failed);
  ASSERT_EQ(check.daemons_size(), 1);
  EXPECT_EQ(check.daemons(0).job().state(), v1::Job::succeeded);
  EXPECT_EQ(check.daemons(0).job().output_check(), "failed");
  EXPECT_EQ(check.daemons(0).result().comparison().output_check().status(), v1::OutputCheck::failed);
  EXPECT_EQ(check.daemons(0).result().comparison().latency_change(), v1::Comparison::unavailable);  // withheld
  EXPECT_FALSE(check.daemons(0).json_path().empty());

  // A device this daemon does not own: refused at submission, no job, the reason named.
  const CommandResult refused =
      d.Client({"--json", "measure", "--model", "linear", "--device", "cuda:7", "--output", TempDir("refused_out")});
  EXPECT_NE(refused.exit_code, 0);
  const v1::JobCommandOutput none = ParseOutput(refused);
  ASSERT_EQ(none.daemons_size(), 1);
  EXPECT_FALSE(none.daemons(0).has_job());
  EXPECT_FALSE(none.daemons(0).has_result());
  EXPECT_EQ(none.daemons(0).json_path(), "");
  EXPECT_NE(none.daemons(0).error().find("device"), std::string::npos) << none.daemons(0).error();
  EXPECT_NE(refused.err.find(none.daemons(0).error()), std::string::npos) << refused.err;  // the same words
}

TEST(JsonOutputEndToEnd, SeveralDaemonsStillPrintOneDocument) {
  TestDaemon a(TempDir("a")), b(TempDir("b"));
  const std::string out = TempDir("two_out");
  const CommandResult r = e2e::Run(Runfile("client/torchscan-client"),
                                   {"--daemon", a.address(), "--daemon", b.address(), "--json", "measure", "--model",
                                    "linear", "--min-run-time", "0.02", "--output", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const v1::JobCommandOutput doc = ParseOutput(r);
  ASSERT_EQ(doc.daemons_size(), 2);
  EXPECT_EQ(doc.daemons(0).daemon(), a.address());
  EXPECT_EQ(doc.daemons(1).daemon(), b.address());
  for (const v1::DaemonJobOutput& run : doc.daemons()) {
    EXPECT_EQ(run.job().state(), v1::Job::succeeded) << run.daemon();
    EXPECT_EQ(run.json_path().rfind(out + "/", 0), 0u) << run.json_path();  // OUTPUT/<machine>/report.json
    absl::StatusOr<v1::BenchmarkReport> saved = report::LoadReport(run.json_path());
    ASSERT_TRUE(saved.ok()) << saved.status();
    ExpectSameMessage(run.result().report(), *saved);
  }
  EXPECT_NE(doc.daemons(0).json_path(), doc.daemons(1).json_path());
  EXPECT_EQ(ShowJob(a, doc.daemons(0).job().id()).state(), v1::Job::succeeded);
  EXPECT_EQ(ShowJob(b, doc.daemons(1).job().id()).state(), v1::Job::succeeded);
}

}  // namespace
}  // namespace torchscan::e2e
