#include "workloads/fingerprint.h"

#include <gtest/gtest.h>

namespace torchscan::workloads {
namespace {

TEST(Fingerprint, IsTheSha256ThatSha256sumPrints) {
  EXPECT_EQ(Fingerprint(""), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Fingerprint("abc"), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_NE(Fingerprint("module v1"), Fingerprint("module v2"));
}

TEST(Fingerprint, PartsHashAsTheirConcatenation) {
  EXPECT_EQ(Fingerprint({"float32 [2]", "", "\x01\x02"}), Fingerprint("float32 [2]\x01\x02"));
  EXPECT_NE(Fingerprint({"ab", "c"}), Fingerprint({"ab", "d"}));
}

}  // namespace
}  // namespace torchscan::workloads
