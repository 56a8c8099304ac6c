#include "report/instruction_text.h"

#include <gtest/gtest.h>

namespace torchscan::report {
namespace {

TEST(DescribeInstructionCounts, FiguresOrTheReason) {
  v1::InstructionCounts c;
  c.add_diagnostics("valgrind is not installed");
  EXPECT_EQ(DescribeInstructionCounts(c), "no count: valgrind is not installed");
  c.Clear();
  c.set_complete(true);
  c.set_instructions(1234000);
  c.set_repeats(2);
  c.set_calls(10);
  c.set_spread(0);
  c.set_estimated_cycles(1520000);
  c.set_l1_misses(310);
  c.set_ll_misses(2);
  c.set_tool("callgrind-3.19.0, cache simulation on");
  c.set_wall_s(12.3);
  EXPECT_EQ(DescribeInstructionCounts(c),
            "1.234 M instructions per call (repeats agree exactly); est. 1.520 M cycles, 310.0 L1 and 2.000 LL "
            "misses per call; 10 calls \u00d7 2 repeats, callgrind-3.19.0, cache simulation on, 12.30 s");
}

TEST(DescribeInstructionDiff, HeadlineRowsOrWhyNot) {
  v1::InstructionDiff d;
  d.set_unknown_reason("withheld: the output check failed (x)");
  EXPECT_EQ(DescribeInstructionDiff(d), "withheld: the output check failed (x)");
  EXPECT_TRUE(DiffRows(d, 3).empty());
  d.set_unknown_reason("only the baseline was counted");
  EXPECT_EQ(DescribeInstructionDiff(d), "unknown: only the baseline was counted");
  d.Clear();
  d.set_known(true);
  d.set_before(1234000);
  d.set_after(1258680);
  d.set_delta(24680);
  d.set_relative_change(0.02);
  d.set_estimated_cycles_change(0.018);
  d.set_spread(0.0002);
  v1::FunctionDelta* up = d.add_increases();
  up->set_name("Sleef_tanhf8_u10avx2");
  up->set_before(120000);
  up->set_after(144100);
  up->set_delta(24100);
  v1::FunctionDelta* down = d.add_decreases();
  down->set_name("[allocator]");
  down->set_before(900);
  down->set_after(800);
  down->set_delta(-100);
  EXPECT_EQ(DescribeInstructionDiff(d),
            "+2.0% instructions per call (+24.68 k: 1.234 M \u2192 1.259 M); est. cycles +1.8%; repeats differ by "
            "up to 0.02%");
  const std::vector<const v1::FunctionDelta*> rows = DiffRows(d, 3);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(FunctionDeltaText(*rows[0]), "+24.10 k  Sleef_tanhf8_u10avx2 (120.0 k \u2192 144.1 k)");
  EXPECT_EQ(FunctionDeltaText(*rows[1]), "-100.0  [allocator] (900.0 \u2192 800.0)");
}

}  // namespace
}  // namespace torchscan::report
