#include "workloads/unpacked_folders.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace torchscan::workloads {
namespace {

namespace fs = std::filesystem;

void Touch(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "x";
}

TEST(UnpackedFolders, OnlyANewFolderHoldingThisPackagesEntryIsRemoved) {
  const fs::path root = fs::path(std::getenv("TEST_TMPDIR")) / "unpacked";
  fs::remove_all(root);
  const std::string entry = "m/data/aotinductor/model/abc.wrapper.so";
  Touch(root / "OLD123" / entry);  // there before: another load's, left alone
  const UnpackedFolders before = UnpackedFolders::Before(root.string());
  Touch(root / "NEW123" / entry);                                        // this load's: removed
  Touch(root / "NEW456" / "m/data/aotinductor/model/other.wrapper.so");  // another package's
  Touch(root / "NEW7890" / entry);                                       // not mkdtemp's length
  EXPECT_EQ(before.RemoveNewHolding(entry), 1);
  EXPECT_FALSE(fs::exists(root / "NEW123"));
  EXPECT_TRUE(fs::exists(root / "OLD123" / entry));
  EXPECT_TRUE(fs::exists(root / "NEW456"));
  EXPECT_TRUE(fs::exists(root / "NEW7890"));
  EXPECT_EQ(before.RemoveNewHolding("../NEW456"), 0);
  EXPECT_EQ(before.RemoveNewHolding(""), 0);
  EXPECT_TRUE(fs::exists(root / "NEW456"));
}

TEST(UnpackedFolders, AMissingRootRemovesNothing) {
  EXPECT_EQ(UnpackedFolders::Before("/nonexistent/torchscan").RemoveNewHolding("a.so"), 0);
}

}  // namespace
}  // namespace torchscan::workloads
