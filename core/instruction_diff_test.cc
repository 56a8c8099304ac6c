#include "core/instruction_diff.h"

#include <gtest/gtest.h>

namespace torchscan {
namespace {

v1::BenchmarkReport Counted(double instructions, std::vector<std::pair<std::string, double>> functions,
                            double spread = 0) {
  v1::BenchmarkReport r;
  v1::InstructionCounts* c = r.mutable_instructions();
  c->set_complete(true);
  c->set_instructions(instructions);
  c->set_spread(spread);
  c->set_estimated_cycles(instructions * 2);
  c->set_functions_threshold(10);
  for (const auto& [name, self] : functions) {
    v1::FunctionCount* f = c->add_functions();
    f->set_name(name);
    f->set_self(self);
  }
  return r;
}

TEST(DiffInstructions, DeltaAndTheFunctionsThatGrewAndShrank) {
  const v1::BenchmarkReport before = Counted(
      1000,
      {{"Sleef_tanhf8_u10avx2", 500}, {"[dispatcher and boxing]", 300}, {"memcpy", 100}, {"[other functions]", 5}});
  const v1::BenchmarkReport after = Counted(
      1100,
      {{"Sleef_tanhf8_u10avx2", 600}, {"[dispatcher and boxing]", 290}, {"sgemm_kernel", 40}, {"[other functions]", 9}},
      0.0004);
  const v1::InstructionDiff d = DiffInstructions(before, after, "");
  ASSERT_TRUE(d.known());
  EXPECT_DOUBLE_EQ(d.before(), 1000);
  EXPECT_DOUBLE_EQ(d.after(), 1100);
  EXPECT_DOUBLE_EQ(d.delta(), 100);
  EXPECT_DOUBLE_EQ(d.relative_change(), 0.1);
  EXPECT_DOUBLE_EQ(d.spread(), 0.0004);
  EXPECT_NEAR(d.estimated_cycles_change(), 0.1, 1e-12);
  ASSERT_EQ(d.increases_size(), 2);
  EXPECT_EQ(d.increases(0).name(), "Sleef_tanhf8_u10avx2");
  EXPECT_DOUBLE_EQ(d.increases(0).delta(), 100);
  EXPECT_EQ(d.increases(1).name(), "sgemm_kernel");  // kept by the candidate only: against half the threshold
  EXPECT_DOUBLE_EQ(d.increases(1).before(), 5);
  ASSERT_EQ(d.decreases_size(), 2);
  EXPECT_EQ(d.decreases(0).name(), "memcpy");
  EXPECT_DOUBLE_EQ(d.decreases(0).delta(), -95);
  EXPECT_EQ(d.decreases(1).name(), "[dispatcher and boxing]");
  EXPECT_FALSE(d.note().empty());
}

TEST(DiffInstructions, WithheldWhenTheDeltasAreOrASideIsMissing) {
  const v1::BenchmarkReport counted = Counted(1000, {{"f", 900}});
  v1::InstructionDiff d = DiffInstructions(counted, counted, "withheld: the output check failed (x)");
  EXPECT_FALSE(d.known());
  EXPECT_EQ(d.unknown_reason(), "withheld: the output check failed (x)");
  EXPECT_FALSE(d.has_delta());
  EXPECT_EQ(d.increases_size(), 0);

  d = DiffInstructions(counted, v1::BenchmarkReport(), "");
  EXPECT_FALSE(d.known());
  EXPECT_EQ(d.unknown_reason(), "only the baseline was counted");

  v1::BenchmarkReport failed;
  failed.mutable_instructions()->add_diagnostics("valgrind is not installed");
  d = DiffInstructions(counted, failed, "");
  EXPECT_EQ(d.unknown_reason(), "the candidate's count is incomplete (valgrind is not installed)");

  d = DiffInstructions(v1::BenchmarkReport(), v1::BenchmarkReport(), "");
  EXPECT_FALSE(d.known());
  EXPECT_TRUE(d.unknown_reason().empty());  // neither counted: nothing to show
  v1::Comparison c;
  EXPECT_FALSE(HasInstructionDiff(c));
  *c.mutable_instructions() = DiffInstructions(counted, failed, "");
  EXPECT_TRUE(HasInstructionDiff(c));
}

}  // namespace
}  // namespace torchscan
