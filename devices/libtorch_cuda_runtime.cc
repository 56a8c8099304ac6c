#include "devices/libtorch_cuda_runtime.h"

#include <ATen/DeviceAccelerator.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <ATen/ops/empty.h>
#include <c10/core/Event.h>
#include <torch/cuda.h>

#include "devices/cuda_driver.h"
#include "devices/cuda_support.h"

namespace torchscan::devices {
namespace {

c10::DeviceIndex Index(int index) { return static_cast<c10::DeviceIndex>(index); }

// EventFlag::BACKEND_DEFAULT is cudaEventDefault, which records time (PYTORCH_DEFAULT
// disables timing).
class LibTorchEvents : public GpuEvents {
 public:
  explicit LibTorchEvents(int index)
      : index_(index),
        start_(c10::DeviceType::CUDA, c10::EventFlag::BACKEND_DEFAULT),
        end_(c10::DeviceType::CUDA, c10::EventFlag::BACKEND_DEFAULT) {}

  void RecordStart() override { start_.record(at::accelerator::getCurrentStream(Index(index_))); }
  void RecordEnd() override { end_.record(at::accelerator::getCurrentStream(Index(index_))); }
  double ElapsedSeconds() override {
    end_.synchronize();  // elapsedTime throws cudaErrorNotReady on an event still pending
    return start_.elapsedTime(end_) / 1000.0;
  }

 private:
  int index_;
  c10::Event start_;
  c10::Event end_;
};

class LibTorchCuda : public GpuRuntime {
 public:
  absl::Status Load() override { return LoadCudaSupport(); }
  int DeviceCount() override { return torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0; }
  void Synchronize(int index) override { torch::cuda::synchronize(index); }
  std::unique_ptr<GpuEvents> NewEvents(int index) override { return std::make_unique<LibTorchEvents>(index); }
  void ResetPeaks(int index) override {
    // The allocator's statistics exist once CUDA is initialised on the device (LibTorch 2.x
    // throws "Invalid device argument" before): one tiny allocation initialises it.
    at::empty({1}, at::TensorOptions().device(c10::Device(c10::DeviceType::CUDA, Index(index))));
    torch::cuda::synchronize(index);
    at::accelerator::resetPeakStats(Index(index));
  }
  MemoryPeaks Peaks(int index) override {
    const auto stats = at::accelerator::getDeviceStats(Index(index));
    constexpr size_t kAggregate = 0;  // StatType::AGGREGATE
    return MemoryPeaks{stats.allocated_bytes[kAggregate].peak, stats.reserved_bytes[kAggregate].peak};
  }
  void Describe(int index, v1::Environment* env) override {
    long runtime = 0;
    try {
      runtime = at::detail::getCUDAHooks().versionCUDART();
    } catch (const std::exception&) {
      runtime = 0;
    }
    env->set_cuda_runtime(FormatCudaVersion(static_cast<int>(runtime)));
    DescribeFromDriver(index, env);
  }
  DeviceState State(int index) override { return ReadDriverState(index); }
};

}  // namespace

std::shared_ptr<GpuRuntime> LibTorchCudaRuntime() {
  static const auto* const runtime = new std::shared_ptr<GpuRuntime>(std::make_shared<LibTorchCuda>());
  return *runtime;
}

}  // namespace torchscan::devices
