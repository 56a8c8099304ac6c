#include "workloads/sha256.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace torchscan::workloads {
namespace {

constexpr const char* kTwoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

// FIPS 180-4's examples (NIST CSRC "SHA256.pdf", "SHA2_Additional.pdf").
TEST(Sha256, MatchesTheNistExamples) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex(kTwoBlocks), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                      "mnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Padding edges: 55 bytes fit one block with the length, 56 need a second one.
TEST(Sha256, LengthsAroundTheBlockEdge) {
  EXPECT_EQ(Sha256Hex(std::string(55, 'a')), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(Sha256Hex(std::string(56, 'a')), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(Sha256Hex(std::string(64, 'a')), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(Sha256, PiecesInAnySplitGiveTheSameDigest) {
  const std::string text = std::string(kTwoBlocks) + std::string(100, 'x');
  const std::string whole = Sha256Hex(text);
  for (size_t split = 0; split <= text.size(); ++split) {
    Sha256 hash;
    hash.Update(absl::string_view(text).substr(0, split));
    hash.Update(absl::string_view(text).substr(split));
    ASSERT_EQ(hash.HexDigest(), whole) << "split at " << split;
  }
}

// What a user runs to match a report to a file.
TEST(Sha256, EqualsWhatSha256sumPrintsForARealFile) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/bytes.bin";
  std::string bytes;
  for (int i = 0; i < 200000; ++i) bytes += static_cast<char>((i * 7919) & 0xff);
  std::ofstream(path, std::ios::binary) << bytes;
  FILE* pipe = ::popen(("sha256sum " + path).c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char line[256] = {};
  ASSERT_NE(std::fgets(line, sizeof(line), pipe), nullptr);
  ASSERT_EQ(::pclose(pipe), 0);
  EXPECT_EQ(std::string(line, 64), Sha256Hex(bytes));
  EXPECT_EQ(std::string(line + 64, 2), "  ");
}

}  // namespace
}  // namespace torchscan::workloads
