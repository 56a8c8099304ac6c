// What a GPU device (cuda_device.h) asks of its runtime: one seam, so that the device's logic
// (which index it synchronises, when it times with events, how it reads allocator peaks) is
// tested with a fake runtime on any machine, and LibTorch's CUDA half is touched by one
// implementation only (libtorch_cuda_runtime.h). Indices are CUDA's: the visible devices.
#pragma once

#include <memory>

#include "absl/status/status.h"
#include "devices/device.h"
#include "proto/report.pb.h"

namespace torchscan::devices {

// Two timing events on one device's current stream.
class GpuEvents {
 public:
  virtual ~GpuEvents() = default;
  virtual void RecordStart() = 0;
  virtual void RecordEnd() = 0;
  // Seconds from the start event to the end event; waits for the end event first.
  virtual double ElapsedSeconds() = 0;
};

class GpuRuntime {
 public:
  virtual ~GpuRuntime() = default;
  // OK once this process can drive GPUs through the runtime; else why not and the fix
  // (FailedPrecondition: no CUDA support library; Unavailable: no GPU visible).
  virtual absl::Status Load() = 0;
  // Devices visible to this process (after CUDA_VISIBLE_DEVICES). Call after Load.
  virtual int DeviceCount() = 0;
  // Waits for all work queued on device `index`.
  virtual void Synchronize(int index) = 0;
  // Timing events on device `index`'s current stream; nullptr when the runtime has none.
  virtual std::unique_ptr<GpuEvents> NewEvents(int index) = 0;
  // Makes sure the allocator of `index` is initialised, then resets its peak statistics.
  virtual void ResetPeaks(int index) = 0;
  // The allocator's allocated and reserved peaks of `index` since ResetPeaks.
  virtual MemoryPeaks Peaks(int index) = 0;
  // device_name, cuda_runtime, cuda_driver and gpu of `env` for device `index`. Never throws.
  virtual void Describe(int index, v1::Environment* env) = 0;
  // What the driver reports of device `index` now (device_noise.h). Never throws.
  virtual DeviceState State(int index) = 0;
};

}  // namespace torchscan::devices
