#include "io/nearest_name.h"

#include <gtest/gtest.h>

namespace torchscan {
namespace {

TEST(NearestName, FindsTyposAcrossCaseDashesAndUnderscores) {
  const std::vector<std::string> fields = {"intra_op_threads", "inter_op_threads", "min_run_time_s", "rss"};
  EXPECT_EQ(NearestName("minRunTime", fields), "min_run_time_s");
  EXPECT_EQ(NearestName("intra_op_thread", fields), "intra_op_threads");
  const std::vector<std::string> flags = {"--threads", "--min-run-time", "--rss", "--label"};
  EXPECT_EQ(NearestName("--min-runtime", flags), "--min-run-time");
  EXPECT_EQ(NearestName("--thread", flags), "--threads");
  EXPECT_EQ(NearestName("mesure", {"info", "measure", "compare", "example", "jobs"}), "measure");
  EXPECT_EQ(NearestName("lst", {"list", "show", "cancel"}), "list");
}

TEST(NearestName, NothingWhenNoNameIsClose) {
  EXPECT_EQ(NearestName("turbo_mode", {"schema_version", "name", "created_at"}), "");
  EXPECT_EQ(NearestName("--frobnicate", {"--threads", "--rss"}), "");
  EXPECT_EQ(NearestName("", {"a"}), "");
  EXPECT_EQ(NearestName("x", {}), "");
}

TEST(NearestName, TiesGoToTheEarlierCandidate) { EXPECT_EQ(NearestName("ab", {"ac", "ad"}), "ac"); }

}  // namespace
}  // namespace torchscan
