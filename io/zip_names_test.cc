// Zip entry names from the central directory: a plain archive, a zip64 one, a comment after
// the end record, and hostile bytes (truncated, offsets past the end) refused without a crash.
#include "io/zip_names.h"

#include "io/zip_fixture.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace torchscan {
namespace {

const std::vector<std::string> kModule = {"model/data.pkl", "model/code/__torch__/m.py", "model/constants.pkl",
                                          "model/version"};

TEST(ZipEntryNames, ListsTheCentralDirectoryInOrder) {
  EXPECT_EQ(ZipEntryNames(ZipOf(kModule)).value(), kModule);
  EXPECT_EQ(ZipEntryNames(ZipOf(kModule, false, "a comment")).value(), kModule);
  EXPECT_EQ(ZipEntryNames(ZipOf({})).value(), std::vector<std::string>{});
}

TEST(ZipEntryNames, ReadsZip64Archives) { EXPECT_EQ(ZipEntryNames(ZipOf(kModule, true)).value(), kModule); }

TEST(ZipEntryNames, RefusesWhatIsNotAWholeZipArchive) {
  for (const std::string& bytes : {std::string(), std::string("hello"), std::string(100, 'x'),
                                   std::string("\x80\x02}q\x00.", 6) /* a legacy pickle */}) {
    const auto names = ZipEntryNames(bytes);
    ASSERT_FALSE(names.ok());
    EXPECT_EQ(names.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(names.status().message().rfind("not a zip archive: ", 0), 0u) << names.status();
  }
  // Every cut of a real archive either lists names or is refused; none reads past the bytes.
  const std::string whole = ZipOf(kModule, true, "c");
  for (size_t cut = 0; cut < whole.size(); ++cut) {
    const auto names = ZipEntryNames(std::string_view(whole).substr(cut));
    if (names.ok()) {
      EXPECT_LE(names->size(), kModule.size());
    }
    const auto head = ZipEntryNames(std::string_view(whole).substr(0, cut));
    if (head.ok()) {
      EXPECT_LE(head->size(), kModule.size());
    }
  }
}

}  // namespace
}  // namespace torchscan
