#include "passes/instruction_summary.h"

#include <gtest/gtest.h>

#include "passes/frame_groups.h"
#include "passes/instruction_protocol.h"

namespace torchscan::passes {
namespace {

CallgrindFunction Fn(const std::string& name, int64_t self, int64_t inclusive) {
  return {name, {self, 0, 0, 0, 0, 0, 0}, {inclusive, 0, 0, 0, 0, 0, 0}};
}

// A dump with `ir` instructions and the cache events' totals; functions as given.
CallgrindProfile Dump(int64_t ir, std::vector<CallgrindFunction> functions = {}, int64_t misses = 0) {
  CallgrindProfile p;
  p.events = {"Ir", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"};
  p.totals = {ir, misses, misses, 0, 0, misses, 0};
  p.functions = std::move(functions);
  return p;
}

TEST(SummarizeRepeats, SubtractsTheEmptyLoopAndTakesTheMedianPerCall) {
  const std::vector<CallgrindFunction> work = {
      Fn("main", 0, 10'400),
      Fn("run(Workload&)", 100, 10'000),
      Fn("Sleef_tanhf8_u10avx2", 6'000, 6'000),
      Fn("c10::Dispatcher::callBoxed(c10::OperatorHandle const&)", 2'000, 3'900),
      Fn("c10::impl::BoxedKernelWrapper<int>::call(int)", 1'000, 1'000),
      Fn("tiny()", 1, 1)};
  std::vector<CountedRepeat> repeats = {{Dump(400), Dump(10'400, work, 40)}, {Dump(400), Dump(10'410)}};
  SummaryOptions o;
  o.calls = 10;
  o.warmup_calls = 3;
  v1::InstructionCounts c;
  SummarizeRepeats(repeats, o, &c);
  ASSERT_TRUE(c.complete());
  EXPECT_EQ(c.calls(), 10);
  EXPECT_EQ(c.repeats(), 2);
  EXPECT_EQ(c.warmup_calls(), 3);
  EXPECT_DOUBLE_EQ(c.repeat_instructions(0), 1000);
  EXPECT_DOUBLE_EQ(c.repeat_instructions(1), 1001);
  EXPECT_DOUBLE_EQ(c.instructions(), 1000.5);
  EXPECT_NEAR(c.spread(), 1 / 1000.5, 1e-12);
  EXPECT_DOUBLE_EQ(c.empty_call_instructions(), 40);
  EXPECT_DOUBLE_EQ(c.l1_misses(), 8);  // (40 + 40) / 10
  EXPECT_DOUBLE_EQ(c.ll_misses(), 4);
  EXPECT_DOUBLE_EQ(c.estimated_cycles(), 1000.5 + 80 + 400);
  // main holds the whole loop and is left out; the rest by inclusive count, per call.
  ASSERT_EQ(c.top_inclusive_size(), 5);
  EXPECT_EQ(c.top_inclusive(0).name(), "run");
  EXPECT_DOUBLE_EQ(c.top_inclusive(0).inclusive(), 1000);
  EXPECT_EQ(c.top_inclusive(1).name(), "Sleef_tanhf8_u10avx2");
  // Self counts, the dispatcher's frames in one group, the tiny function in "other".
  ASSERT_EQ(c.functions_size(), 4);
  EXPECT_EQ(c.functions(0).name(), "Sleef_tanhf8_u10avx2");
  EXPECT_DOUBLE_EQ(c.functions(0).self(), 600);
  EXPECT_EQ(c.functions(1).name(), "[dispatcher and boxing]");
  EXPECT_DOUBLE_EQ(c.functions(1).self(), 300);
  EXPECT_EQ(c.functions(2).name(), "run");
  EXPECT_EQ(c.functions(3).name(), "[other functions]");
  EXPECT_DOUBLE_EQ(c.functions(3).self(), 0.1);
  EXPECT_DOUBLE_EQ(c.functions_threshold(), 0.0005 * 1040);
}

TEST(SummarizeRepeats, WithoutCacheSimulationThereAreNoCacheFigures) {
  CallgrindProfile empty, calls;
  empty.events = calls.events = {"Ir"};
  empty.totals = {10};
  calls.totals = {1010};
  SummaryOptions o;
  o.calls = 10;
  v1::InstructionCounts c;
  SummarizeRepeats({{empty, calls}}, o, &c);
  ASSERT_TRUE(c.complete());
  EXPECT_DOUBLE_EQ(c.instructions(), 100);
  EXPECT_DOUBLE_EQ(c.spread(), 0);
  EXPECT_FALSE(c.has_l1_misses());
  EXPECT_FALSE(c.has_estimated_cycles());
}

TEST(SummarizeRepeats, ALoopWithNothingCountedIsNoResult) {
  SummaryOptions o;
  o.calls = 10;
  v1::InstructionCounts c;
  SummarizeRepeats({{Dump(0), Dump(0)}}, o, &c);
  EXPECT_FALSE(c.complete());
  EXPECT_FALSE(c.has_instructions());
  ASSERT_EQ(c.diagnostics_size(), 1);
  EXPECT_EQ(c.diagnostics(0), "a counted loop holds no instructions: callgrind's collection was never switched on");
  v1::InstructionCounts none;
  SummarizeRepeats({}, o, &none);
  EXPECT_FALSE(none.complete());
}

TEST(FrameGroup, GroupsLibTorchsNoisyFramesAndKeepsKernels) {
  EXPECT_EQ(FrameGroup("c10::Dispatcher::callBoxed"), "[dispatcher and boxing]");
  EXPECT_EQ(FrameGroup("c10::impl::wrap_kernel_functor_unboxed_<at::Tensor (at::Tensor const&)>::call"),
            "[dispatcher and boxing]");
  EXPECT_EQ(FrameGroup("torch::jit::InterpreterStateImpl::runImpl"), "[TorchScript interpreter]");
  EXPECT_EQ(FrameGroup("c10::intrusive_ptr<c10::TensorImpl>::reset_"), "[IValues and reference counts]");
  EXPECT_EQ(FrameGroup("_int_malloc"), "[allocator]");
  EXPECT_EQ(FrameGroup("c10::TensorImpl::sizes_custom"), "[tensor metadata]");
  EXPECT_EQ(FrameGroup("at::TensorIteratorBase::build"), "[TensorIterator set-up]");
  EXPECT_EQ(FrameGroup("gomp_team_barrier_wait_end"), "[thread pool and OpenMP]");
  EXPECT_EQ(FrameGroup("_dl_runtime_resolve_xsave"), "[dynamic linker]");
  EXPECT_EQ(FrameGroup("Sleef_tanhf8_u10avx2"), "");
  EXPECT_EQ(FrameGroup("sgemm_kernel_HASWELL"), "");
  EXPECT_EQ(FrameGroup("at::native::(anonymous namespace)::addmm_impl_cpu_"), "");
  EXPECT_EQ(FrameGroup("free"), "[allocator]");
  EXPECT_EQ(FrameGroup("freeze_things"), "");  // whole words only
  EXPECT_EQ(FrameGroup("exec_blas_async"), "[thread pool and OpenMP]");
}

TEST(InstructionProtocol, RoundTripsTheResultLine) {
  const std::string line = FormatInstructionChildLine({10, 2, 3, 1, 1});
  EXPECT_EQ(line, "torchscan_instruction_child calls=10 repeats=2 warmup=3 intra_op_threads=1 inter_op_threads=1");
  const std::optional<InstructionChildResult> r = ParseInstructionChildOutput("noise\n" + line + "\n");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->calls, 10);
  EXPECT_EQ(r->repeats, 2);
  EXPECT_EQ(r->warmup, 3);
  EXPECT_FALSE(ParseInstructionChildOutput("torchscan_instruction_child calls=10 repeats=2\n").has_value());
  EXPECT_FALSE(ParseInstructionChildOutput("torchscan_instruction_child calls=-1 repeats=2 warmup=3 "
                                           "intra_op_threads=1 inter_op_threads=1\n")
                   .has_value());
  EXPECT_EQ(EmptyLoopLabel(2), "empty 2");
  EXPECT_EQ(CallsLoopLabel(1), "calls 1");
}

}  // namespace
}  // namespace torchscan::passes
