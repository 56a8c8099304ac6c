#include "devices/cpu_device.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include "core/environment.h"
#include "io/file_io.h"

namespace torchscan::devices {
namespace {

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

class CpuDevice : public Device {
 public:
  explicit CpuDevice(spec::DeviceName name) : Device(std::move(name)) {}

  void Synchronize() override {}
  std::unique_ptr<BlockTimer> NewBlockTimer(Clock* host) override { return HostClockTimer(host, nullptr, "none"); }

  MemoryPeaks PeakOfCall(const std::function<void()>& call) override {
    auto observer = std::make_shared<TensorMemoryObserver>();
    {
      c10::DebugInfoGuard guard(c10::DebugInfoKind::PROFILER_STATE, observer);
      call();
    }
    return MemoryPeaks{observer->peak(), std::nullopt};
  }

  void Describe(v1::Environment* env) override {
    env->set_cuda_runtime("none");
    env->set_cuda_driver("none");
    env->set_device_name(!env->cpu_model().empty() ? env->cpu_model()
                                                   : ParseCpuInfo(ReadFile("/proc/cpuinfo").value_or("")).model);
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<Device>> OpenCpuDevice(const spec::DeviceName& name) {
  return std::unique_ptr<Device>(new CpuDevice(name));
}

}  // namespace torchscan::devices
