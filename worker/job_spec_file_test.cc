// A job folder's spec file: the daemon's binary spec round-trips uploaded bytes exactly, a
// JSON job file is still read, and a missing or damaged spec is named without touching the
// caller's message.
#include "worker/job_spec_file.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "io/file_io.h"

namespace torchscan::worker {
namespace {

namespace fs = std::filesystem;

std::string FreshDir(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

v1::JobSpec SpecWithBytes() {
  v1::JobSpec spec;
  spec.set_label("every byte");
  std::string bytes;
  for (int i = 0; i < 4096; ++i) bytes.push_back(static_cast<char>(i % 256));
  spec.mutable_measure()->mutable_workload()->mutable_model()->mutable_torchscript()->set_module_bytes(bytes);
  return spec;
}

TEST(JobSpecFile, TheBinarySpecKeepsUploadedBytesExactly) {
  const std::string dir = FreshDir("binary");
  const v1::JobSpec spec = SpecWithBytes();
  ASSERT_TRUE(SaveJobSpec(spec, dir, 0600).ok());
  EXPECT_TRUE(fs::exists(dir + "/spec.binpb"));
  EXPECT_FALSE(fs::exists(dir + "/spec.json"));
  EXPECT_EQ(fs::status(dir + "/spec.binpb").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  v1::JobSpec read;
  ASSERT_TRUE(LoadJobSpec(dir, &read).ok());
  EXPECT_EQ(read.SerializeAsString(), spec.SerializeAsString());
  EXPECT_EQ(JobSpecPath(dir), dir + "/spec.binpb");
}

TEST(JobSpecFile, AJsonJobFileIsReadWhenThereIsNoBinarySpec) {
  const std::string dir = FreshDir("json");
  ASSERT_TRUE(WriteFileAtomic(dir + "/spec.json", R"({"label": "by hand", "measure": {}})").ok());
  v1::JobSpec read;
  ASSERT_TRUE(LoadJobSpec(dir, &read).ok());
  EXPECT_EQ(read.label(), "by hand");
  EXPECT_TRUE(read.has_measure());
  EXPECT_EQ(JobSpecPath(dir), dir + "/spec.json");
  // The JSON is strict: an unknown field is named.
  ASSERT_TRUE(WriteFileAtomic(dir + "/spec.json", R"({"lable": "typo"})").ok());
  const absl::Status typo = LoadJobSpec(dir, &read);
  EXPECT_EQ(typo.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(typo.message().find("lable"), std::string::npos) << typo;
  EXPECT_EQ(read.label(), "by hand");
}

TEST(JobSpecFile, TheBinarySpecWinsOverAJsonOne) {
  const std::string dir = FreshDir("both");
  ASSERT_TRUE(WriteFileAtomic(dir + "/spec.json", R"({"label": "json"})").ok());
  ASSERT_TRUE(SaveJobSpec(SpecWithBytes(), dir).ok());
  v1::JobSpec read;
  ASSERT_TRUE(LoadJobSpec(dir, &read).ok());
  EXPECT_EQ(read.label(), "every byte");
  EXPECT_EQ(JobSpecPath(dir), dir + "/spec.binpb");
}

TEST(JobSpecFile, MissingOrDamagedSpecsAreNamedAndLeaveTheMessageAlone) {
  const std::string dir = FreshDir("bad");
  v1::JobSpec read;
  read.set_label("untouched");
  const absl::Status missing = LoadJobSpec(dir, &read);
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("spec.binpb"), std::string::npos) << missing;
  EXPECT_NE(missing.message().find("spec.json"), std::string::npos) << missing;
  EXPECT_EQ(JobSpecPath(dir), dir + "/spec.binpb");

  // A field tag 0 is never valid protobuf: the parse fails.
  ASSERT_TRUE(WriteFileAtomic(dir + "/spec.binpb", std::string("\x00\x01\x02", 3)).ok());
  const absl::Status damaged = LoadJobSpec(dir, &read);
  EXPECT_EQ(damaged.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(damaged.message().find(dir + "/spec.binpb"), std::string::npos) << damaged;
  EXPECT_EQ(read.label(), "untouched");
}

}  // namespace
}  // namespace torchscan::worker
