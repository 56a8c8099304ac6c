#include "passes/rss_protocol.h"

#include <gtest/gtest.h>

namespace torchscan::passes {
namespace {

TEST(RssProtocol, ParsesVmHwmInKibibytes) {
  const char* status = "Name:\ttorchscan_rss_c\nVmPeak:\t  500000 kB\nVmHWM:\t  123456 kB\nVmRSS:\t  100000 kB\n";
  EXPECT_EQ(ParseVmHwmBytes(status), 123456LL * 1024);
}

TEST(RssProtocol, MissingOrMalformedVmHwmIsUnknown) {
  EXPECT_EQ(ParseVmHwmBytes("Name:\tx\nVmRSS:\t 1 kB\n"), std::nullopt);
  EXPECT_EQ(ParseVmHwmBytes("VmHWM:\t 12 MB\n"), std::nullopt);
  EXPECT_EQ(ParseVmHwmBytes("VmHWM:\t -5 kB\n"), std::nullopt);
  EXPECT_EQ(ParseVmHwmBytes(""), std::nullopt);
}

TEST(RssProtocol, ChildLineRoundTrips) {
  const std::string line = FormatRssChildLine({987654321, 100, 3, 2});
  EXPECT_EQ(line, "torchscan_rss_child vm_hwm_bytes=987654321 calls=100 intra_op_threads=3 inter_op_threads=2");
  const auto parsed = ParseRssChildOutput("warming up\n" + line + "\n");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->vm_hwm_bytes, 987654321);
  EXPECT_EQ(parsed->calls, 100);
  EXPECT_EQ(parsed->intra_op_threads, 3);
  EXPECT_EQ(parsed->inter_op_threads, 2);
}

TEST(RssProtocol, RejectsOutputWithoutAValidLine) {
  EXPECT_EQ(ParseRssChildOutput("hello\n"), std::nullopt);
  EXPECT_EQ(ParseRssChildOutput("torchscan_rss_child vm_hwm_bytes=12\n"), std::nullopt);
  EXPECT_EQ(ParseRssChildOutput("torchscan_rss_child vm_hwm_bytes=abc calls=1 intra_op_threads=1 inter_op_threads=1\n"),
            std::nullopt);
  // A line without the thread counts does not say what ran: refused.
  EXPECT_EQ(ParseRssChildOutput("torchscan_rss_child vm_hwm_bytes=12 calls=1\n"), std::nullopt);
  EXPECT_EQ(ParseRssChildOutput(""), std::nullopt);
}

}  // namespace
}  // namespace torchscan::passes
