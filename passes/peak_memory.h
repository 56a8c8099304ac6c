// measure_peak_memory: tensor / allocator memory of one workload call, a diagnostic pass
// separate from timing. Each quantity is its own MetricResult (unit "bytes") with an
// explicit method and scope; none of them is, or may be added to, RSS.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include "devices/device.h"
#include "proto/report.pb.h"

namespace torchscan::passes {

// Runs `call` once on `device` (Workload::device) through Device::PeakOfCall and returns:
// CPU:
//   tensor_baseline_bytes  the storage bytes of `resident` (the tensors already resident when
//                          the call starts, e.g. Workload::resident_tensors: weights and
//                          inputs), each storage counted once (tensors without storage, e.g.
//                          MKLDNN, count numel x element size once per tensor)
//   tensor_peak_bytes      baseline + the highest running total of CPU tensor bytes allocated
//                          minus freed during the call, as LibTorch's memory reporting
//                          (c10::MemoryReportingInfoBase installed with
//                          c10::DebugInfoGuard(PROFILER_STATE)) reports them on the calling
//                          thread; the call's output is freed inside the observed scope
//   tensor_delta_bytes     tensor_peak_bytes - tensor_baseline_bytes
// CUDA: cuda_allocator_peak_allocated_bytes and
//   cuda_allocator_peak_reserved_bytes, the caching allocator's peaks for that device after
//   resetPeakStats (they include memory already allocated when the call starts).
// Never fails: when the call is empty or throws, every metric is returned
// without a value, complete = false, with the reason in its diagnostics.
std::vector<torchscan::v1::MetricResult> MeasurePeakMemory(const std::function<c10::IValue()>& call,
                                                           devices::Device& device,
                                                           const std::vector<at::Tensor>& resident = {});

}  // namespace torchscan::passes
