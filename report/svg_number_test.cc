#include "report/svg_number.h"

#include "gtest/gtest.h"

namespace torchscan::report {
namespace {

TEST(SvgNumberTest, OneDecimalRounded) {
  EXPECT_EQ(SvgNumber(12.34), "12.3");
  EXPECT_EQ(SvgNumber(400), "400.0");
  EXPECT_EQ(SvgNumber(-0.46), "-0.5");
  EXPECT_EQ(SvgNumber(0.05), "0.1");
}

}  // namespace
}  // namespace torchscan::report
