// FLOPs of a model whose compute the operator profile cannot see all of (an AOTInductor
// package: its compiled kernels run outside the dispatcher, workloads/workload.h
// opaque_compute). Its count is never marked complete on what the profile saw: it is a lower
// bound with the reason, unless a comparison can carry the count of the other side, the same
// model uncompiled, whose count is complete; then the carried value says where it came from.
// Proto only, no LibTorch.
#pragma once

#include <string>

#include "proto/report.pb.h"

namespace torchscan::experiment {

// `why` ("" : nothing to do) as the profile's flops_per_call diagnostic, complete = false, and
// the same in the profile's note. Kernel markers, the profile's operators named without a
// namespace ("graph_0_cpp_fused_tanh_0", "aoti_torch_cpu_addmm_out": what a package compiled
// with cpp.enable_kernel_profile records around each kernel; every dispatcher operator has one,
// "aten::addmm"), are named in the note as such, with their count, and their per-operator
// "no FLOP formula" diagnostics fold into one; with none, `without_markers` is added to the note.
void MarkOpaqueFlops(const std::string& why, const std::string& without_markers, v1::OperatorProfile* profile);

// After the output check of a comparison: when it passed (the two sides computed the same
// outputs from the same inputs) and exactly one side's FLOP count is an opaque lower bound
// (`before_opaque`, `after_opaque`) while the other's is complete, the opaque side takes the
// other's count, complete, with a diagnostic naming its source; its achieved_flops_per_s total
// is computed again. Anything else: nothing changes. Returns whether it carried.
bool CarryFlops(const v1::OutputCheck& check, bool before_opaque, bool after_opaque, v1::BenchmarkReport* before,
                v1::BenchmarkReport* after);

// FLOPs per call / median latency, as a report's achieved_flops_per_s total: a lower bound when
// the count is, unknown without a count or a median.
v1::MetricResult AchievedFlops(const v1::BenchmarkReport& report);

}  // namespace torchscan::experiment
