#include "devices/cuda_device.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "devices/gpu_pin.h"

namespace torchscan::devices {
namespace {

// Events on the device's stream around the block: the kernels' time on the GPU, not the
// host's launch time. Stop waits for the end event, so the block's work has finished.
class EventTimer : public BlockTimer {
 public:
  EventTimer(std::unique_ptr<GpuEvents> events, std::shared_ptr<GpuRuntime> runtime, int index, std::string device)
      : events_(std::move(events)), runtime_(std::move(runtime)), index_(index), device_(std::move(device)) {}

  void Start() override { events_->RecordStart(); }
  double Stop() override {
    events_->RecordEnd();
    return events_->ElapsedSeconds();
  }
  void Wait() override { runtime_->Synchronize(index_); }
  std::string Describe() const override {
    return absl::StrCat("CUDA events on ", device_,
                        "'s current stream around each block (elapsed time from the start to the end event, once the "
                        "end event has completed)");
  }

 private:
  std::unique_ptr<GpuEvents> events_;
  std::shared_ptr<GpuRuntime> runtime_;
  int index_;
  std::string device_;
};

class CudaDevice : public Device {
 public:
  CudaDevice(spec::DeviceName name, int ordinal, std::shared_ptr<GpuRuntime> runtime)
      : Device(std::move(name), absl::StrCat("cuda:", ordinal)), ordinal_(ordinal), runtime_(std::move(runtime)) {}

  void Synchronize() override { runtime_->Synchronize(index()); }

  std::unique_ptr<BlockTimer> NewBlockTimer(Clock* host) override {
    if (std::unique_ptr<GpuEvents> events = runtime_->NewEvents(index()))
      return std::make_unique<EventTimer>(std::move(events), runtime_, index(), text());
    return HostClockTimer(
        host, [runtime = runtime_, index = index()] { runtime->Synchronize(index); },
        absl::StrCat("host clock around a synchronize of ", text(), " at each block's end (no timing events)"));
  }

  MemoryPeaks PeakOfCall(const std::function<void()>& call) override {
    runtime_->Synchronize(index());
    runtime_->ResetPeaks(index());
    call();
    runtime_->Synchronize(index());
    return runtime_->Peaks(index());
  }

  void Describe(v1::Environment* env) override { runtime_->Describe(index(), env); }
  std::optional<DeviceState> State() override { return runtime_->State(index()); }

 private:
  int index() const { return ordinal_; }  // the runtime's ordinal of the device

  const int ordinal_;
  std::shared_ptr<GpuRuntime> runtime_;
};

absl::Status Unusable(const spec::DeviceName& name, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("device '", name.text, "' cannot be used: ", why));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Device>> OpenCudaDevice(const spec::DeviceName& name,
                                                       std::shared_ptr<GpuRuntime> runtime,
                                                       const std::optional<std::string>& pinned) {
  const int ordinal = LocalGpuIndex(name.index, pinned);
  if (ordinal < 0)
    return Unusable(name, absl::StrCat("its daemon gave this worker only cuda:",
                                       absl::StrReplaceAll(*pinned, {{",", ", cuda:"}}), " (", kPinnedGpusVariable,
                                       "); the daemon places each job on the GPUs it names, "
                                       "so this is a daemon fault: report it"));
  if (absl::Status loaded = runtime->Load(); !loaded.ok()) return Unusable(name, loaded.message());
  const int count = runtime->DeviceCount();
  if (count <= 0)
    return Unusable(name,
                    "this LibTorch has CUDA but no CUDA device is visible (driver, CUDA_VISIBLE_DEVICES?); use "
                    "device 'cpu'");
  if (ordinal >= count)
    return Unusable(name, absl::StrCat("only ", count, " CUDA device(s) are visible (cuda:0",
                                       count > 1 ? absl::StrCat("..cuda:", count - 1) : "", ")"));
  return std::unique_ptr<Device>(new CudaDevice(name, ordinal, std::move(runtime)));
}

}  // namespace torchscan::devices
