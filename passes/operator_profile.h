// profile_workload: a diagnostic pass, separate from timing, that observes every LibTorch
// operator of a workload call through RecordFunction and reports per-operator statistics and
// FLOPs (formulas and convention in workloads/flop_formulas.h).
#pragma once

#include <functional>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "proto/report.pb.h"
#include "workloads/graph_compute.h"

namespace torchscan::passes {

// Runs `call` once unobserved (lazy initialisation and TorchScript's profiling runs stay out
// of the profile), then `calls` times with a thread-local RecordFunction observer (inputs
// captured) on the calling thread; operators run by other threads are not seen, except tasks
// that inherit the caller's thread-local state (at::launch).
// The profile holds, per operator (sorted by self time, longest first), totals over the
// `calls` observed calls: calls, inclusive and self time (with instrumentation), calls
// grouped by input shapes ("[32, 128] [128, 128]"; "32x[128]" for a list of equal shapes)
// and FLOPs. OperatorStat.flops: the FLOPs attributed to the operator (counted only at the
// outermost operator with a formula: nested ones, e.g. aten::mm inside aten::matmul, show 0);
// 0 for operators that count 0 by convention; absent for operators without formula.
// flops_per_call: total FLOPs / calls, unit "FLOP", with method and scope. Operators without
// formula that run outside any operator with a formula or counting 0 by convention (so
// aten::cudnn_batch_norm inside aten::batch_norm is not flagged), and have no counted operator
// inside them (aten::einsum is covered by its aten::bmm), are listed in its diagnostics and
// make it incomplete (the value is then a lower bound).
// `graph` (a TorchScript workload's Workload::graph_compute; nullptr for the built-ins): the
// method graph's compute nodes are reconciled with what the observers saw (ReconcileGraphCompute,
// workloads/graph_compute.h): nodes the observers cannot see (prim::mkldnn_convolution after
// optimize_for_inference) or see without formula (XNNPACK prepacked operators) are counted from
// the graph's static shapes and listed in flops_per_call's diagnostics (the operator's
// OperatorStat.flops then holds the graph's count when it has one); nodes that cannot be counted
// make it incomplete, with a diagnostic naming the operator.
// `note` says that profiler times include instrumentation and are not clean workload timing.
// Errors: kInvalidArgument when `call` is empty or calls < 1; kFailedPrecondition when a
// profile is already running on this thread; the status RunTorch (workloads/torch_status.h) maps from
// what `call` throws (the observer is removed in every case).
absl::StatusOr<torchscan::v1::OperatorProfile> ProfileWorkload(const std::function<c10::IValue()>& call, int calls,
                                                               const workloads::GraphCompute* graph = nullptr);

}  // namespace torchscan::passes
