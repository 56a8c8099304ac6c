#include "client/history_against.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "google/protobuf/util/message_differencer.h"
#include "tests/fixtures/evidence_fixtures.h"
#include "tests/fixtures/history_fixtures.h"

namespace torchscan {
namespace {

using fixtures::MachineText;
using fixtures::NotPointJob;
using fixtures::PointJob;
using google::protobuf::util::MessageDifferencer;

// Newest first: a failed job at rev-d, then points at rev-c, rev-b, rev-b (an older rerun), rev-a.
std::vector<v1::Job> History() {
  const std::string m = MachineText("openblas");
  return {NotPointJob("job-6", "rev-d", v1::Job::failed), PointJob("job-5", "2026-01-05T00:00:00Z", "rev-c", 1e-4, m),
          PointJob("job-4", "2026-01-04T00:00:00Z", "rev-b", 2e-4, m),
          PointJob("job-3", "2026-01-03T00:00:00Z", "rev-b", 3e-4, m),
          PointJob("job-2", "2026-01-02T00:00:00Z", "rev-a", 4e-4, m)};
}

TEST(FindAgainstPoints, TheNewestPointAndTheNewestPointAtTheRevision) {
  const std::vector<v1::Job> jobs = History();
  absl::StatusOr<AgainstPoints> points = FindAgainstPoints(jobs, "bert", "rev-b");
  ASSERT_TRUE(points.ok()) << points.status();
  EXPECT_EQ(points->newest->id(), "job-5");  // the failed job-6 is no point
  EXPECT_EQ(points->at_revision->id(), "job-4");
  EXPECT_EQ(FindAgainstPoints(jobs, "bert", "rev-a")->at_revision->id(), "job-2");
}

TEST(FindAgainstPoints, AnUnknownRevisionNamesTheFlagTheNameAndTheNewestRevisions) {
  const std::vector<v1::Job> jobs = History();
  absl::Status s = FindAgainstPoints(jobs, "bert", "rev-x").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "--against rev-x: no succeeded job of \"bert\" was measured at that revision; did you mean rev-c? "
            "(newest revisions: rev-c, rev-b, rev-a)");
  // rev-d is only a failed job's: not a point to compare with.
  EXPECT_NE(FindAgainstPoints(jobs, "bert", "rev-d").status().message().find("no succeeded job"), std::string::npos);
  // A short form of a long revision is suggested, not taken.
  std::vector<v1::Job> hashes = {PointJob("job-2", "2026-01-02T00:00:00Z", "0123456789abcdef", 1e-4, "m"),
                                 PointJob("job-1", "2026-01-01T00:00:00Z", "fedcba9876543210", 1e-4, "m")};
  absl::Status short_form = FindAgainstPoints(hashes, "bert", "fedcba98").status();
  EXPECT_NE(short_form.message().find("did you mean fedcba9876543210?"), std::string::npos) << short_form;
  // Two edits turn any short revision into another: no near spelling is offered for one.
  absl::Status tiny = FindAgainstPoints(hashes, "bert", "zz").status();
  EXPECT_EQ(tiny.message().find("did you mean"), std::string::npos) << tiny;
}

TEST(FindAgainstPoints, ListsAtMostFiveRevisions) {
  std::vector<v1::Job> jobs;
  for (int i = 9; i >= 1; --i)
    jobs.push_back(PointJob("job-" + std::to_string(i), "2026-01-01T00:00:00Z", "r" + std::to_string(i), 1e-4, "m"));
  absl::Status s = FindAgainstPoints(jobs, "bert", "zzzzzzzz").status();
  EXPECT_NE(s.message().find("(newest revisions: r9, r8, r7, r6, r5, ...)"), std::string::npos) << s;
}

TEST(FindAgainstPoints, TheNewestPointAtTheRevisionItselfIsNothingToCompare) {
  const std::vector<v1::Job> jobs = History();
  absl::Status s = FindAgainstPoints(jobs, "bert", "rev-c").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("--against rev-c: the newest result of \"bert\" (job job-5) is itself at revision rev-c"),
            std::string::npos)
      << s;
}

TEST(FindAgainstPoints, NoPointsOrNoRevisionsAreSaidSo) {
  const std::vector<v1::Job> failed = {NotPointJob("job-1", "rev-a", v1::Job::failed)};
  EXPECT_NE(FindAgainstPoints(failed, "bert", "rev-a").status().message().find("has no succeeded job with figures"),
            std::string::npos);
  const std::vector<v1::Job> unrevised = {PointJob("job-2", "2026-01-02T00:00:00Z", "", 1e-4, "m"),
                                          PointJob("job-1", "2026-01-01T00:00:00Z", "", 1e-4, "m")};
  EXPECT_NE(FindAgainstPoints(unrevised, "bert", "rev-a").status().message().find("--revision REV"), std::string::npos);
}

TEST(PointRun, AReportIsItselfAndAComparisonStandsForItsCandidate) {
  const v1::BenchmarkReport report = fixtures::ReportAlone();
  absl::StatusOr<v1::BenchmarkReport> own = PointRun(report::Evidence(report), "job-1");
  ASSERT_TRUE(own.ok());
  EXPECT_TRUE(MessageDifferencer::Equals(*own, report));
  const v1::Comparison comparison = fixtures::PassedComparison();
  absl::StatusOr<v1::BenchmarkReport> candidate = PointRun(report::Evidence(comparison), "job-2");
  ASSERT_TRUE(candidate.ok()) << candidate.status();
  EXPECT_TRUE(MessageDifferencer::Equals(*candidate, comparison.after()));
  EXPECT_FALSE(MessageDifferencer::Equals(*candidate, comparison.before()));
}

}  // namespace
}  // namespace torchscan
