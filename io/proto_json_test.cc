#include "io/proto_json.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "io/file_io.h"
#include "proto/report.pb.h"

namespace torchscan {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

// The protobuf parser keeps the sign of "-0.0" and "-0e15" but reads "-0" as the integer 0,
// and the printer writes -0.0 as "-0": without a rule, a negative zero changed on a save and
// a load. Every spelling of zero is read as +0, and a negative zero is written as 0.
TEST(ProtoJson, EveryZeroIsReadAndWrittenAsPositiveZero) {
  for (const std::string zero : {"-0", "-0.0", "-0e15", "-0E-3", "0"}) {
    v1::BenchmarkReport r;
    const std::string json = "{\"work_units\": " + zero + ", \"timing\": {\"blocks\": [{\"duration_s\": " + zero +
                             "}], \"summary\": {\"median_s\": " + zero + "}}}";
    ASSERT_TRUE(ParseJsonStrict(json, "zero.json", &r).ok()) << json;
    EXPECT_FALSE(std::signbit(r.work_units())) << zero;
    EXPECT_FALSE(std::signbit(r.timing().blocks(0).duration_s())) << zero;
    EXPECT_FALSE(std::signbit(r.timing().summary().median_s())) << zero;
    v1::BenchmarkReport reloaded;
    ASSERT_TRUE(ParseJsonStrict(ToJson(r), "zero.json", &reloaded).ok());
    EXPECT_EQ(reloaded.SerializeAsString(), r.SerializeAsString()) << zero;
  }
  v1::BenchmarkReport negative;
  negative.set_work_units(-0.0);
  negative.mutable_timing()->add_blocks()->set_duration_s(0.5);
  negative.mutable_timing()->add_blocks()->set_duration_s(-0.0);
  const std::string json = ToJson(negative);
  EXPECT_EQ(json.find("-0"), std::string::npos) << json;
  EXPECT_NE(json.find("\"work_units\": 0"), std::string::npos) << json;
  EXPECT_TRUE(std::signbit(negative.work_units()));  // ToJson leaves its argument alone
}

TEST(ProtoJson, AnUnknownFieldIsNamedWithItsMessageTheNearestAndEveryValidName) {
  v1::BenchmarkReport r;
  absl::Status s = ParseJsonStrict(R"({"name": "x", "timing": {"blocks": [{"cals": 2}]}})", "r.json", &r);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "r.json: not a valid BenchmarkReport JSON file: timing.blocks.cals: TimingBlock has no field \"cals\"; "
            "did you mean calls? Its fields: calls, duration_s");
  s = ParseJsonStrict(R"({"nmae": "x"})", "r.json", &r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("nmae: BenchmarkReport has no field \"nmae\"; did you mean name? Its fields: "
                             "schema_version, name, created_at,"),
            std::string::npos)
      << s;
  // Nothing close: no guess, but still every valid name.
  s = ParseJsonStrict(R"({"turbo_mode": true, "name": "x"})", "r.json", &r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("turbo_mode: BenchmarkReport has no field \"turbo_mode\" Its fields: "), std::string::npos)
      << s;
  // A camelCase JSON name on the way is followed too.
  s = ParseJsonStrict(R"({"timing": {"blocks": [{"durationS": 0.5, "callz": 2}]}})", "r.json", &r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("did you mean calls?"), std::string::npos) << s;
  EXPECT_TRUE(r.name().empty());  // all or nothing: `out` is untouched on error
}

TEST(ProtoJson, SavedMessagesLoadBackEqual) {
  v1::BenchmarkReport r;
  r.set_name("baseline");
  r.mutable_timing()->add_blocks()->set_duration_s(0.25);
  r.mutable_timing()->mutable_summary()->set_max_s(std::numeric_limits<double>::infinity());
  const std::string path = TempPath("saved.json");
  ASSERT_TRUE(SaveJson(r, path).ok());
  EXPECT_EQ(ReadFile(path).value_or(""), ToJson(r));
  v1::BenchmarkReport loaded;
  ASSERT_TRUE(LoadJsonStrict(path, &loaded).ok());
  EXPECT_EQ(loaded.SerializeAsString(), r.SerializeAsString());
  const absl::Status missing = LoadJsonStrict(TempPath("missing.json"), &loaded);
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("missing.json"), std::string::npos) << missing;
}

}  // namespace
}  // namespace torchscan
