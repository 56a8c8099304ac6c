// The instruction-count pass for real: valgrind's callgrind around torchscan_rss_child
// --instructions on the built-in linear model, and its failure paths.
#include "passes/instruction_count.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "proto/workload.pb.h"

namespace torchscan::passes {
namespace {

const std::string kChild = "passes/torchscan_rss_child";

v1::WorkloadSpec Linear(int64_t batch) {
  v1::WorkloadSpec spec;
  spec.mutable_model()->set_builtin(v1::ModelSpec::linear);
  v1::GeneratedTensor* x = spec.add_inputs()->mutable_generated();
  x->add_shape(batch);
  x->add_shape(128);
  return spec;
}

InstructionOptions OneThread() {
  InstructionOptions o;
  o.intra_op_threads = 1;
  o.inter_op_threads = 1;
  return o;
}

TEST(CountInstructions, CountsTheLinearModelRepeatablyAndMoreWorkCountsMore) {
  const v1::InstructionCounts small = CountInstructions(Linear(32), kChild, OneThread());
  ASSERT_TRUE(small.complete()) << small.DebugString();
  EXPECT_EQ(small.calls(), kDefaultInstructionCalls);
  EXPECT_EQ(small.repeats(), kInstructionRepeats);
  ASSERT_EQ(small.repeat_instructions_size(), kInstructionRepeats);
  EXPECT_GT(small.instructions(), 10'000);  // a 32x128 by 128x128 matrix product at least
  EXPECT_LE(small.spread(), kInstructionSpreadLimit) << small.DebugString();
  EXPECT_GE(small.empty_call_instructions(), 0);
  EXPECT_LT(small.empty_call_instructions(), 1000);
  EXPECT_TRUE(small.has_estimated_cycles());
  EXPECT_GE(small.estimated_cycles(), small.instructions());
  EXPECT_TRUE(absl::StartsWith(small.tool(), "callgrind-")) << small.tool();
  EXPECT_NE(small.scope().find("1 intra-op and 1 inter-op threads"), std::string::npos) << small.scope();
  EXPECT_FALSE(small.top_inclusive().empty());
  ASSERT_FALSE(small.functions().empty());
  double self_sum = 0;
  for (const v1::FunctionCount& f : small.functions()) self_sum += f.self();
  // Self rows (grouped, the rest in "[other functions]") add up to the loop: the call, its loop
  // and the empty loop's share.
  EXPECT_NEAR(self_sum, small.instructions() + small.empty_call_instructions(), small.instructions() * 0.01);

  const v1::InstructionCounts large = CountInstructions(Linear(128), kChild, OneThread());
  ASSERT_TRUE(large.complete()) << large.DebugString();
  EXPECT_GT(large.instructions(), 2 * small.instructions());  // four times the rows
}

TEST(CountInstructions, SaysWhyWhenItCannotCount) {
  InstructionOptions o = OneThread();
  o.valgrind = "/nonexistent/valgrind";
  v1::InstructionCounts c = CountInstructions(Linear(32), kChild, o);
  EXPECT_FALSE(c.complete());
  ASSERT_EQ(c.diagnostics_size(), 1);
  EXPECT_NE(c.diagnostics(0).find("valgrind is not installed"), std::string::npos) << c.diagnostics(0);
  EXPECT_NE(c.diagnostics(0).find("apt-get install valgrind"), std::string::npos);

  c = CountInstructions(Linear(32), "/nonexistent/child", OneThread());
  EXPECT_FALSE(c.complete());
  EXPECT_NE(c.diagnostics(0).find("'/nonexistent/child' is missing"), std::string::npos) << c.diagnostics(0);

  // A workload the child cannot build: its reason comes back.
  v1::WorkloadSpec broken = Linear(32);
  broken.mutable_inputs(0)->mutable_generated()->set_shape(1, 7);  // Linear(128, 128) on 7 columns
  c = CountInstructions(broken, kChild, OneThread());
  EXPECT_FALSE(c.complete());
  EXPECT_NE(c.diagnostics(0).find("the child under valgrind exited with status 2"), std::string::npos)
      << c.diagnostics(0);

  o = OneThread();
  o.timeout_s = 0.5;  // valgrind cannot even start LibTorch in half a second
  c = CountInstructions(Linear(32), kChild, o);
  EXPECT_FALSE(c.complete());
  EXPECT_NE(c.diagnostics(0).find("ran past its 0.5 s limit"), std::string::npos) << c.diagnostics(0);
}

TEST(CountInstructions, TheChildRefusesToRunOutsideValgrind) {
  const std::string command = kChild + " --instructions /dev/null 10 1 1 3 2 2>/dev/null";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

}  // namespace
}  // namespace torchscan::passes
