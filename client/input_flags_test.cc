#include "client/input_flags.h"

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

namespace torchscan {
namespace {

std::vector<int64_t> Shape(const v1::InputSpec& input) {
  return {input.generated().shape().begin(), input.generated().shape().end()};
}

TEST(ParseInputFlag, ShapeAloneIsFloat32NormalWithThePositionAsSeed) {
  absl::StatusOr<v1::InputSpec> input = ParseInputFlag("64x256", 2);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(Shape(*input), (std::vector<int64_t>{64, 256}));
  EXPECT_EQ(input->generated().dtype(), v1::GeneratedTensor::float32);
  EXPECT_EQ(input->generated().distribution_case(), v1::GeneratedTensor::DISTRIBUTION_NOT_SET);
  EXPECT_EQ(input->generated().seed(), 2);
  EXPECT_EQ(input->name(), "");
}

TEST(ParseInputFlag, NamedIntegerInputsTakeTheirRange) {
  absl::StatusOr<v1::InputSpec> input = ParseInputFlag("ids=4x8:int64:0..30522", 0);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->name(), "ids");
  EXPECT_EQ(Shape(*input), (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(input->generated().dtype(), v1::GeneratedTensor::int64);
  EXPECT_EQ(input->generated().integers().low(), 0);
  EXPECT_EQ(input->generated().integers().high(), 30522);
}

TEST(ParseInputFlag, FloatRangeIsUniformAndScalarHasNoDimensions) {
  absl::StatusOr<v1::InputSpec> input = ParseInputFlag("8x3x32x32:float32:-0.5..1.5", 0);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_DOUBLE_EQ(input->generated().uniform().low(), -0.5);
  EXPECT_DOUBLE_EQ(input->generated().uniform().high(), 1.5);
  absl::StatusOr<v1::InputSpec> implicit = ParseInputFlag("16:-1..1", 0);
  ASSERT_TRUE(implicit.ok()) << implicit.status();
  EXPECT_DOUBLE_EQ(implicit->generated().uniform().high(), 1);
  absl::StatusOr<v1::InputSpec> scalar = ParseInputFlag("scalar", 0);
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->generated().shape_size(), 0);
}

TEST(ParseInputFlag, BadTextIsNamedWithTheAcceptedForm) {
  for (const std::string text : {"", "64y256", "64x-1", "4x8:int64", "4x8:int64:5..5", "4x8:int64:0.5..2",
                                 "4x8:float64", "4x8:0..1:int64", "4x8:a..b", "4:1:2:3", "9x=4"}) {
    absl::StatusOr<v1::InputSpec> input = ParseInputFlag(text, 0);
    ASSERT_FALSE(input.ok()) << text;
    EXPECT_EQ(input.status().message().rfind("--input \"" + text + "\": ", 0), 0u) << input.status();
    EXPECT_NE(input.status().message().find("[NAME=]SHAPE[:DTYPE][:LOW..HIGH]"), std::string::npos) << input.status();
  }
}

TEST(ParseInputFileFlag, AReadableFileIsUploadedNamedByItsAbsolutePath) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  std::ofstream(dir + "/x.pt") << "bytes";
  absl::StatusOr<v1::InputSpec> input = ParseInputFileFlag("mask=" + dir + "/x.pt", FileTransport::kUpload);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->name(), "mask");
  EXPECT_EQ(input->tensor_bytes(), "bytes");
  EXPECT_EQ(input->source_name(), dir + "/x.pt");
  const absl::Status missing = ParseInputFileFlag("/no/such/x.pt", FileTransport::kUpload).status();
  EXPECT_EQ(missing.message().rfind("--input-file \"/no/such/x.pt\": cannot read '/no/such/x.pt'", 0), 0u) << missing;
  EXPECT_NE(ParseInputFileFlag(dir, FileTransport::kUpload).status().message().find("not a regular file"),
            std::string::npos);
}

TEST(ParseInputFileFlag, WithDaemonPathTheAbsolutePathGoesUnread) {
  absl::StatusOr<v1::InputSpec> input = ParseInputFileFlag("x=/data/on/the/daemon/x.pt", FileTransport::kDaemonPath);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->tensor_file(), "/data/on/the/daemon/x.pt");
}

TEST(AddInputFlags, KeepsCommandLineOrderAcrossBothFlags) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  std::ofstream(dir + "/mask.pt") << "bytes";
  v1::WorkloadSpec w;
  ASSERT_TRUE(AddInputFlags({{"--input", "4x8:int64:0..9"}, {"--input-file", dir + "/mask.pt"}, {"--input", "4x8"}},
                            FileTransport::kUpload, &w)
                  .ok());
  ASSERT_EQ(w.inputs_size(), 3);
  EXPECT_TRUE(w.inputs(0).has_generated());
  EXPECT_EQ(w.inputs(1).source_name(), dir + "/mask.pt");
  EXPECT_EQ(w.inputs(2).generated().seed(), 2);  // its position, not its count among --input
}

TEST(AddMetadataFlags, KeyValuePairsAreCheckedAsTheDaemonChecksThem) {
  v1::WorkloadSpec w;
  ASSERT_TRUE(AddMetadataFlags({"dataset_revision=v3", "notes=a=b"}, &w).ok());
  EXPECT_EQ(w.input_metadata().at("dataset_revision"), "v3");
  EXPECT_EQ(w.input_metadata().at("notes"), "a=b");
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"no_equals"}, {"seed=1"}, {"input.x.seed=1"}, {"a=1", "a=2"}, {"bad key=1"}}) {
    v1::WorkloadSpec fresh;
    const absl::Status s = AddMetadataFlags(bad, &fresh);
    EXPECT_EQ(s.message().rfind("--metadata", 0), 0u) << s;
  }
}

}  // namespace
}  // namespace torchscan
