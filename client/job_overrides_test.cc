#include "client/job_overrides.h"

#include <gtest/gtest.h>

namespace torchscan {
namespace {

v1::JobSpec MeasureJob() {
  v1::JobSpec spec;
  spec.set_label("mlp");
  spec.mutable_measure()->mutable_workload()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  spec.mutable_options()->set_min_run_time_s(0.2);
  return spec;
}

TEST(ApplyFlagsToJobFile, RunSettingsOverrideTheFileAndAreListed) {
  v1::JobSpec spec = MeasureJob();
  RunFlags run;
  run.min_run_time = 1;
  run.rss = true;
  run.threads = 2;
  run.label = "mlp, longer";
  run.revision = "3f2c1e0";
  std::vector<std::string> overrides;
  ASSERT_TRUE(
      ApplyFlagsToJobFile({"--min-run-time", "--rss", "--threads", "--label", "--revision", "--job", "--output"}, run,
                          nullptr, "mlp_job.json", &spec, &overrides)
          .ok());
  EXPECT_EQ(spec.options().min_run_time_s(), 1);
  EXPECT_TRUE(spec.options().rss());
  EXPECT_EQ(spec.options().intra_op_threads(), 2);
  EXPECT_EQ(spec.label(), "mlp, longer");
  EXPECT_EQ(spec.revision(), "3f2c1e0");
  EXPECT_EQ(overrides,
            (std::vector<std::string>{"intra_op_threads 0 -> 2 (--threads)", "min_run_time_s 0.2 -> 1 (--min-run-time)",
                                      "rss false -> true (--rss)", "label \"mlp\" -> \"mlp, longer\" (--label)",
                                      "revision \"\" -> \"3f2c1e0\" (--revision)"}));
  // The workload is the file's.
  EXPECT_EQ(spec.measure().workload().model().builtin(), v1::ModelSpec::linear);
}

TEST(ApplyFlagsToJobFile, NoFlagsChangeNothing) {
  v1::JobSpec spec = MeasureJob();
  std::vector<std::string> overrides;
  ASSERT_TRUE(ApplyFlagsToJobFile({"--job"}, RunFlags(), nullptr, "j.json", &spec, &overrides).ok());
  EXPECT_EQ(spec.SerializeAsString(), MeasureJob().SerializeAsString());
  EXPECT_TRUE(overrides.empty());
}

TEST(ApplyFlagsToJobFile, FlagsForWhatTheFileDefinesAreRefusedNamingTheFlag) {
  v1::JobSpec spec = MeasureJob();
  RunFlags run;
  run.min_run_time = 1;
  std::vector<std::string> overrides;
  const absl::Status s =
      ApplyFlagsToJobFile({"--model", "--min-run-time", "--rss"}, run, nullptr, "mlp_job.json", &spec, &overrides);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()).rfind("--model: cannot be combined with --job mlp_job.json", 0), 0u) << s;
  // It lists the flags that may go with --job, as --help does (JobFileOverrideFlags).
  EXPECT_NE(std::string(s.message())
                .find("(flags that may go with --job: --threads, --min-run-time, --rss, --instructions, --label, "
                      "--revision and --node)"),
            std::string::npos)
      << s;
  EXPECT_EQ(spec.options().min_run_time_s(), 0.2);  // unchanged on error
  EXPECT_TRUE(overrides.empty());
  // --rounds only goes with a compare job.
  CompareFlags compare;
  compare.rounds = 3;
  EXPECT_FALSE(ApplyFlagsToJobFile({"--rounds"}, run, &compare, "j.json", &spec, &overrides).ok());
}

TEST(JobFileOverrideFlags, ListsTheRunSettingsAndForACompareReverseAndRounds) {
  EXPECT_EQ(JobFileOverrideFlags(false),
            "--threads, --min-run-time, --rss, --instructions, --label, --revision and --node");
  EXPECT_EQ(JobFileOverrideFlags(true),
            "--threads, --min-run-time, --rss, --instructions, --label, --revision, --node, --reverse and --rounds");
}

TEST(ApplyFlagsToJobFile, NodePlacesTheJobAndAllIsOnlyForCalibrate) {
  v1::JobSpec spec = MeasureJob();
  RunFlags run;
  run.node = "gpu7";
  std::vector<std::string> overrides;
  ASSERT_TRUE(ApplyFlagsToJobFile({"--node"}, run, nullptr, "j.json", &spec, &overrides).ok());
  EXPECT_EQ(spec.node(), "gpu7");
  ASSERT_EQ(overrides.size(), 1u);
  EXPECT_EQ(overrides[0], "node \"\" -> \"gpu7\" (--node)");
  run.node = kAllNodes;
  const absl::Status all = ApplyFlagsToJobFile({"--node"}, run, nullptr, "j.json", &spec, &overrides);
  EXPECT_EQ(all.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(all.message()).find("is for calibrate"), std::string::npos) << all;
  EXPECT_EQ(spec.node(), "gpu7");  // unchanged on error
}

TEST(ApplyFlagsToJobFile, TheFlagsOwnChecksApply) {
  v1::JobSpec spec = MeasureJob();
  RunFlags run;
  run.min_run_time = -1;
  std::vector<std::string> overrides;
  const absl::Status s = ApplyFlagsToJobFile({"--min-run-time"}, run, nullptr, "j.json", &spec, &overrides);
  EXPECT_NE(s.message().find("--min-run-time"), absl::string_view::npos) << s;
  EXPECT_EQ(spec.options().min_run_time_s(), 0.2);
}

TEST(ApplyFlagsToJobFile, ACompareJobTakesReverseAndRounds) {
  v1::JobSpec spec;
  spec.mutable_compare()->set_rounds(1);
  CompareFlags compare;
  compare.reverse = true;
  compare.rounds = 4;
  std::vector<std::string> overrides;
  ASSERT_TRUE(ApplyFlagsToJobFile({"--reverse", "--rounds"}, compare.run, &compare, "c.json", &spec, &overrides).ok());
  EXPECT_TRUE(spec.compare().reverse());
  EXPECT_EQ(spec.compare().rounds(), 4);
  EXPECT_EQ(overrides, (std::vector<std::string>{"reverse false -> true (--reverse)", "rounds 1 -> 4 (--rounds)"}));
}

}  // namespace
}  // namespace torchscan
