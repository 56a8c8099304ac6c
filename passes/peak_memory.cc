#include "passes/peak_memory.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "devices/device.h"
#include "workloads/torch_status.h"

namespace torchscan::passes {
namespace {

using torchscan::v1::MetricResult;

constexpr char kCpuScope[] =
    "one call; CPU tensors allocated through LibTorch's CPU allocator on the calling thread (and tasks that "
    "inherit its thread-local state); excludes allocator caching, non-tensor memory and RSS";

MetricResult Metric(const std::string& name, const std::string& method, const std::string& scope) {
  MetricResult m;
  m.set_name(name);
  m.set_unit("bytes");
  m.set_method(method);
  m.set_scope(scope);
  return m;
}

std::vector<MetricResult> Unknown(std::vector<MetricResult> metrics, const std::string& reason) {
  for (MetricResult& m : metrics) {
    m.clear_value();
    m.set_complete(false);
    m.add_diagnostics(reason);
  }
  return metrics;
}

// The call with its output freed inside it: the output's memory is part of the call's peak.
std::function<void()> Freed(const std::function<c10::IValue()>& call) {
  return [&call] {
    c10::IValue output = call();
    output = c10::IValue();
  };
}

int64_t ResidentBytes(const std::vector<at::Tensor>& resident) {
  std::set<const void*> seen;
  int64_t bytes = 0;
  for (const at::Tensor& t : resident) {
    if (!t.defined()) continue;
    if (t.has_storage()) {
      const c10::Storage& storage = t.storage();
      const void* key =
          storage.data() != nullptr ? storage.data() : static_cast<const void*>(storage.unsafeGetStorageImpl());
      if (seen.insert(key).second) bytes += static_cast<int64_t>(storage.nbytes());
    } else if (seen.insert(t.unsafeGetTensorImpl()).second) {
      bytes += static_cast<int64_t>(t.numel()) * static_cast<int64_t>(t.element_size());
    }
  }
  return bytes;
}

std::vector<MetricResult> MeasureCpu(const std::function<c10::IValue()>& call, devices::Device& device,
                                     const std::vector<at::Tensor>& resident) {
  std::vector<MetricResult> metrics = {
      Metric("tensor_peak_bytes",
             "tensor_baseline_bytes + highest running total of CPU tensor bytes allocated minus freed during the call, "
             "from LibTorch memory reporting (c10::MemoryReportingInfoBase via DebugInfoGuard PROFILER_STATE)",
             kCpuScope),
      Metric("tensor_baseline_bytes",
             "storage bytes of the tensors resident when the call starts that the workload reports (weights, "
             "buffers, inputs), each storage counted once",
             "tensors resident at the start of the call that the workload holds; other tensors alive in the "
             "process are not included"),
      Metric("tensor_delta_bytes", "tensor_peak_bytes - tensor_baseline_bytes", kCpuScope),
  };
  int64_t baseline = 0;
  absl::Status counted =
      workloads::RunTorch("counting resident tensor bytes", [&] { baseline = ResidentBytes(resident); });
  if (!counted.ok()) return Unknown(std::move(metrics), std::string(counted.message()));
  devices::MemoryPeaks peaks;
  absl::Status ran = workloads::RunTorch("measure_peak_memory call", [&] { peaks = device.PeakOfCall(Freed(call)); });
  if (!ran.ok()) return Unknown(std::move(metrics), std::string(ran.message()));
  metrics[0].set_value(static_cast<double>(baseline + peaks.allocated_bytes));
  metrics[1].set_value(static_cast<double>(baseline));
  metrics[2].set_value(static_cast<double>(peaks.allocated_bytes));
  for (MetricResult& m : metrics) m.set_complete(true);
  return metrics;
}

std::vector<MetricResult> MeasureGpu(const std::function<c10::IValue()>& call, devices::Device& device) {
  const std::string scope = absl::StrCat("one call on ", device.text(),
                                         "; the caching allocator's peak since the call started, including memory "
                                         "already allocated then; excludes CPU memory and RSS");
  std::vector<MetricResult> metrics = {
      Metric("cuda_allocator_peak_allocated_bytes",
             "CUDA caching allocator allocated_bytes peak (resetPeakStats before the call, synchronize after)", scope),
      Metric("cuda_allocator_peak_reserved_bytes",
             "CUDA caching allocator reserved_bytes peak (resetPeakStats before the call, synchronize after)", scope),
  };
  devices::MemoryPeaks peaks;
  absl::Status ran = workloads::RunTorch("measure_peak_memory call", [&] { peaks = device.PeakOfCall(Freed(call)); });
  if (!ran.ok()) return Unknown(std::move(metrics), std::string(ran.message()));
  metrics[0].set_value(static_cast<double>(peaks.allocated_bytes));
  metrics[1].set_value(static_cast<double>(peaks.reserved_bytes.value_or(0)));
  for (MetricResult& m : metrics) m.set_complete(true);
  return metrics;
}

}  // namespace

std::vector<MetricResult> MeasurePeakMemory(const std::function<c10::IValue()>& call, devices::Device& device,
                                            const std::vector<at::Tensor>& resident) {
  if (!call) {
    return Unknown({Metric("tensor_peak_bytes", "unavailable", "one call")}, "measure_peak_memory: call is empty");
  }
  return device.is_cuda() ? MeasureGpu(call, device) : MeasureCpu(call, device, resident);
}

}  // namespace torchscan::passes
