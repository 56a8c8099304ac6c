// Aligned text columns: widths by code point, right alignment, indent, no trailing spaces.
#include "report/text_table.h"

#include <gtest/gtest.h>

namespace torchscan::report {
namespace {

TEST(TextTable, ColumnsAreAsWideAsTheirWidestCell) {
  EXPECT_EQ(TextTable({{"ID", "STATE", "RESULT"}, {"job-000001", "queued #2", ""}, {"job-2", "failed", "why"}}),
            "ID          STATE      RESULT\n"
            "job-000001  queued #2\n"
            "job-2       failed     why\n");
}

TEST(TextTable, RightAlignmentIndentAndCodePoints) {
  EXPECT_EQ(TextTable({{"median", "x"}, {"160.0 \u00b5s", "y"}}, {true, false}, "  "),
            "    median  x\n"
            "  160.0 \u00b5s  y\n");
  EXPECT_EQ(TextTable({}), "");
}

}  // namespace
}  // namespace torchscan::report
