#include "experiment/compiled_flops.h"

#include <gtest/gtest.h>

namespace torchscan::experiment {
namespace {

v1::BenchmarkReport Report(const std::string& name, const std::string& model, double flops, double median_s) {
  v1::BenchmarkReport r;
  r.set_name(name);
  (*r.mutable_workload())["model_source"] = "/home/ann/" + model + " (uploaded, 12346 bytes)";
  r.mutable_profile()->mutable_flops_per_call()->set_value(flops);
  r.mutable_profile()->mutable_flops_per_call()->set_complete(true);
  r.mutable_timing()->mutable_summary()->set_median_s(median_s);
  v1::TensorInfo* input = r.mutable_input_metadata()->add_tensors();
  input->set_name("x");
  input->add_shape(8);
  input->add_shape(64);
  *r.add_totals() = AchievedFlops(r);
  return r;
}

v1::OutputCheck Passed() {
  v1::OutputCheck check;
  check.set_status(v1::OutputCheck::passed);
  return check;
}

TEST(CompiledFlops, WhatTheProfileSawOfAPackageIsALowerBoundWithItsReason) {
  v1::BenchmarkReport r = Report("candidate", "m.pt2", 0, 2e-6);
  MarkOpaqueFlops("compiled kernels run outside the dispatcher", "", r.mutable_profile());
  EXPECT_FALSE(r.profile().flops_per_call().complete());
  EXPECT_EQ(r.profile().flops_per_call().diagnostics(0), "a lower bound: compiled kernels run outside the dispatcher");
  EXPECT_EQ(r.profile().note(), "compiled kernels run outside the dispatcher");
  v1::OperatorProfile untouched;
  MarkOpaqueFlops("", "compile with markers", &untouched);
  EXPECT_FALSE(untouched.has_flops_per_call());
}

TEST(CompiledFlops, KernelMarkersAreNamedAsSuchAndTheirFormulaLinesFoldIntoOne) {
  v1::OperatorProfile profile;
  for (const char* name : {"graph_0_cpp_fused_tanh_0", "aoti_torch_cpu_addmm_out", "aten::copy_"})
    profile.add_operators()->set_name(name);
  v1::MetricResult* flops = profile.mutable_flops_per_call();
  flops->add_diagnostics("aoti_torch_cpu_addmm_out: no FLOP formula (10 calls in 10 calls), its FLOPs are not counted");
  flops->add_diagnostics("graph_0_cpp_fused_tanh_0: no FLOP formula (10 calls in 10 calls), its FLOPs are not counted");
  flops->add_diagnostics("aten::weird: no FLOP formula (10 calls in 10 calls), its FLOPs are not counted");
  MarkOpaqueFlops("kernels are opaque", "compile with markers to see them", &profile);
  ASSERT_EQ(profile.flops_per_call().diagnostics_size(), 2) << profile.DebugString();
  EXPECT_EQ(profile.flops_per_call().diagnostics(0).rfind("aten::weird: no FLOP formula", 0), 0u);
  EXPECT_EQ(profile.flops_per_call().diagnostics(1),
            "a lower bound: kernels are opaque; the profile shows the compiled code's 2 kernel markers (operators "
            "named without a namespace, e.g. aoti_torch_cpu_addmm_out) with their calls and time, not their FLOPs");
  EXPECT_EQ(profile.note().find("compile with markers"), std::string::npos);

  v1::OperatorProfile unmarked;
  unmarked.add_operators()->set_name("aten::copy_");
  MarkOpaqueFlops("kernels are opaque", "compile with markers to see them", &unmarked);
  EXPECT_EQ(unmarked.note(), "kernels are opaque; compile with markers to see them");
}

TEST(CompiledFlops, APassedCheckCarriesTheUncompiledCountNamedAsSuch) {
  v1::BenchmarkReport before = Report("baseline", "m.pt", 65536, 4e-6);
  v1::BenchmarkReport after = Report("candidate", "m.pt2", 0, 2e-6);
  MarkOpaqueFlops("opaque", "", after.mutable_profile());
  ASSERT_TRUE(CarryFlops(Passed(), false, true, &before, &after));
  EXPECT_TRUE(after.profile().flops_per_call().complete());
  EXPECT_EQ(after.profile().flops_per_call().value(), 65536);
  EXPECT_NE(after.profile().flops_per_call().diagnostics(0).find("carried from the baseline (m.pt)"),
            std::string::npos);
  ASSERT_EQ(after.totals_size(), 1);
  EXPECT_EQ(after.totals(0).name(), "achieved_flops_per_s");
  EXPECT_DOUBLE_EQ(after.totals(0).value(), 65536 / 2e-6);
  EXPECT_TRUE(after.totals(0).complete());
}

TEST(CompiledFlops, NothingIsCarriedWithoutAPassedCheckOrFromAnIncompleteCount) {
  v1::BenchmarkReport before = Report("baseline", "m.pt", 65536, 4e-6);
  v1::BenchmarkReport after = Report("candidate", "m.pt2", 0, 2e-6);
  MarkOpaqueFlops("opaque", "", after.mutable_profile());
  v1::OutputCheck skipped;
  skipped.set_status(v1::OutputCheck::not_provided);
  EXPECT_FALSE(CarryFlops(skipped, false, true, &before, &after));
  EXPECT_FALSE(CarryFlops(Passed(), true, true, &before, &after));  // both compiled
  v1::BenchmarkReport other_inputs = Report("baseline", "m.pt", 65536, 4e-6);
  other_inputs.mutable_input_metadata()->mutable_tensors(0)->set_shape(0, 16);
  EXPECT_FALSE(CarryFlops(Passed(), false, true, &other_inputs, &after));
  before.mutable_profile()->mutable_flops_per_call()->set_complete(false);
  EXPECT_FALSE(CarryFlops(Passed(), false, true, &before, &after));
  EXPECT_FALSE(after.profile().flops_per_call().complete());
}

}  // namespace
}  // namespace torchscan::experiment
