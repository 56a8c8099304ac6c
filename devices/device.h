// The device a job runs on: everything TorchScan does differently per device, behind one
// interface (leveldb's Env is the model, as core/clock.h's), so that workloads, the timing
// pass, the memory pass and the environment never ask which device they are on to know how
// to do a thing. OpenDevice (device_registry.h) parses the name once (spec/device_name.h)
// and opens it with its type's implementation: cpu_device.h, cuda_device.h. No LibTorch here.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/block_timer.h"
#include "core/clock.h"
#include "devices/device_noise.h"
#include "proto/report.pb.h"
#include "spec/device_name.h"

namespace torchscan::devices {

// What one call's tensors reached in memory on a device (Device::PeakOfCall).
struct MemoryPeaks {
  // CPU: the highest running total of tensor bytes allocated minus freed during the call on
  // the calling thread (relative to its start). CUDA: the caching allocator's allocated-bytes
  // peak since a reset just before the call (absolute: it includes memory already allocated).
  int64_t allocated_bytes = 0;
  // CUDA: the caching allocator's reserved-bytes peak, as allocated_bytes. The CPU has none.
  std::optional<int64_t> reserved_bytes;
};

class Device {
 public:
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // Normalised: name().text is "cpu" or "cuda:N".
  const spec::DeviceName& name() const { return name_; }
  const std::string& text() const { return name_.text; }
  bool is_cuda() const { return name_.cuda; }
  // The name this process's LibTorch knows the device by (for torch::Device): text(), except
  // in a worker its daemon pinned to the job's GPUs (gpu_pin.h), where cuda:3 may be cuda:0.
  const std::string& local_text() const { return local_text_; }

  // Waits for all work queued on this device: cuda:N's, whichever device is current. Nothing
  // on the CPU. Throws what LibTorch throws.
  virtual void Synchronize() = 0;
  // The timer of each timed block: the host clock `host` around Synchronize on the CPU, events
  // on the device's current stream on a GPU (host clock where it has none). `host` must
  // outlive the timer.
  virtual std::unique_ptr<BlockTimer> NewBlockTimer(Clock* host) = 0;
  // Runs `call` once and returns its peaks (MemoryPeaks). Throws what `call` throws.
  virtual MemoryPeaks PeakOfCall(const std::function<void()>& call) = 0;
  // Sets env's device facts: device_name, cuda_runtime and cuda_driver ("none" on the CPU),
  // and for a GPU its gpu facts; what cannot be read is "unknown" (or unset). `env` already
  // holds the host's facts (core/environment.h: cpu_model). Never throws.
  virtual void Describe(v1::Environment* env) = 0;
  // What the device's driver reports now, for the noise it may add to timing (device_noise.h):
  // read before and after a run's timing. nullopt where there is nothing to read (the CPU).
  // Never throws.
  virtual std::optional<DeviceState> State() { return std::nullopt; }

 protected:
  explicit Device(spec::DeviceName name, std::string local_text = "")
      : name_(std::move(name)), local_text_(local_text.empty() ? name_.text : std::move(local_text)) {}

 private:
  const spec::DeviceName name_;
  const std::string local_text_;
};

}  // namespace torchscan::devices
