#include "passes/peak_memory.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include "absl/strings/str_cat.h"
#include "libtorch_build_info.h"
#include "workloads/device.h"
#include "workloads/torch_status.h"

#if TORCHSCAN_LIBTORCH_CUDA
#include <ATen/ATen.h>
#include <ATen/DeviceAccelerator.h>
#include <torch/cuda.h>
#endif

namespace torchscan::passes {
namespace {

using torchscan::v1::MetricResult;

constexpr char kCpuScope[] =
    "one call; CPU tensors allocated through LibTorch's CPU allocator on the calling thread (and tasks that "
    "inherit its thread-local state); excludes allocator caching, non-tensor memory and RSS";

// The type of reportMemoryUsage's totals: int64_t in LibTorch 1.13, size_t in 2.x.
template <typename>
struct ReportSignature;
template <typename Class, typename Ptr, typename Size, typename Total, typename Reserved, typename Device>
struct ReportSignature<void (Class::*)(Ptr, Size, Total, Reserved, Device)> {
  using TotalBytes = Total;
};
using TotalBytes = ReportSignature<decltype(&c10::MemoryReportingInfoBase::reportMemoryUsage)>::TotalBytes;

// Receives every CPU tensor allocation and free on this thread while installed.
class TensorMemoryObserver : public c10::MemoryReportingInfoBase {
 public:
  void reportMemoryUsage(void* /*ptr*/, int64_t alloc_size, TotalBytes /*total_allocated*/,
                         TotalBytes /*total_reserved*/, c10::Device device) override {
    if (device.type() != c10::DeviceType::CPU) return;
    current_ += alloc_size;
    peak_ = std::max(peak_, current_);
  }
  bool memoryProfilingEnabled() const override { return true; }
  int64_t peak() const { return peak_; }

 private:
  int64_t current_ = 0;  // bytes allocated minus freed since installation
  int64_t peak_ = 0;
};

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

std::vector<MetricResult> MeasureCpu(const std::function<c10::IValue()>& call,
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
  auto observer = std::make_shared<TensorMemoryObserver>();
  absl::Status ran = workloads::RunTorch("measure_peak_memory call", [&] {
    c10::DebugInfoGuard guard(c10::DebugInfoKind::PROFILER_STATE, observer);
    c10::IValue output = call();
    output = c10::IValue();  // the output's memory is part of the call's peak, freed while observed
  });
  if (!ran.ok()) return Unknown(std::move(metrics), std::string(ran.message()));
  metrics[0].set_value(static_cast<double>(baseline + observer->peak()));
  metrics[1].set_value(static_cast<double>(baseline));
  metrics[2].set_value(static_cast<double>(observer->peak()));
  for (MetricResult& m : metrics) m.set_complete(true);
  return metrics;
}

std::vector<MetricResult> MeasureCuda(const std::function<c10::IValue()>& call,
                                      const workloads::ResolvedDevice& device) {
  const std::string scope = absl::StrCat("one call on ", device.name,
                                         "; the caching allocator's peak since the call started, including memory "
                                         "already allocated then; excludes CPU memory and RSS");
  std::vector<MetricResult> metrics = {
      Metric("cuda_allocator_peak_allocated_bytes",
             "CUDA caching allocator allocated_bytes peak (resetPeakStats before the call, synchronize after)", scope),
      Metric("cuda_allocator_peak_reserved_bytes",
             "CUDA caching allocator reserved_bytes peak (resetPeakStats before the call, synchronize after)", scope),
  };
#if TORCHSCAN_LIBTORCH_CUDA
  int64_t allocated = 0, reserved = 0;
  absl::Status ran = workloads::RunTorch("measure_peak_memory call", [&] {
    namespace alloc = at::accelerator;  // the device-generic allocator statistics (no CUDA headers)
    // The allocator's statistics exist once CUDA is initialised on the device (LibTorch 2.x
    // throws "Invalid device argument" before): one tiny allocation initialises it.
    at::empty({1}, at::TensorOptions().device(
                       c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(device.index))));
    torch::cuda::synchronize(device.index);
    alloc::resetPeakStats(static_cast<c10::DeviceIndex>(device.index));
    c10::IValue output = call();
    torch::cuda::synchronize(device.index);
    const auto stats = alloc::getDeviceStats(static_cast<c10::DeviceIndex>(device.index));
    constexpr size_t kAggregate = 0;  // StatType::AGGREGATE (its namespace differs across versions)
    allocated = stats.allocated_bytes[kAggregate].peak;
    reserved = stats.reserved_bytes[kAggregate].peak;
  });
  if (!ran.ok()) return Unknown(std::move(metrics), std::string(ran.message()));
  metrics[0].set_value(static_cast<double>(allocated));
  metrics[1].set_value(static_cast<double>(reserved));
  for (MetricResult& m : metrics) m.set_complete(true);
  return metrics;
#else
  (void)call;
  return Unknown(std::move(metrics), "this TorchScan is built without CUDA");
#endif
}

}  // namespace

std::vector<MetricResult> MeasurePeakMemory(const std::function<c10::IValue()>& call, const std::string& device,
                                            const std::vector<at::Tensor>& resident) {
  absl::StatusOr<workloads::ResolvedDevice> resolved = workloads::ResolveDevice(device);
  if (!resolved.ok()) {
    MetricResult m = Metric("tensor_peak_bytes", "unavailable", absl::StrCat("one call on ", device));
    return Unknown({m}, std::string(resolved.status().message()));
  }
  if (!call) {
    return Unknown({Metric("tensor_peak_bytes", "unavailable", "one call")}, "measure_peak_memory: call is empty");
  }
  return resolved->cuda ? MeasureCuda(call, *resolved) : MeasureCpu(call, resident);
}

}  // namespace torchscan::passes
