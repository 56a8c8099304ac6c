// How a timed block is measured: from before its first call to when the device has finished
// its last call's work. The timing runner (core/latency_runner.h) asks this seam for every
// block; each device (devices/device.h) supplies its own: the host clock around a
// synchronisation on the CPU, events on the device's stream on a GPU. No LibTorch here.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/clock.h"

namespace torchscan {

class BlockTimer {
 public:
  virtual ~BlockTimer() = default;
  // Before the block's first call.
  virtual void Start() = 0;
  // After its last call: the block's duration in seconds, once the device has finished the
  // block's work (Stop waits for it).
  virtual double Stop() = 0;
  // Waits for the device's queued work, untimed (after warm-up).
  virtual void Wait() = 0;
  // What a report records as the timing settings' synchronization, e.g. "none".
  virtual std::string Describe() const = 0;
};

// `clock` read at Start and after `synchronize` (none when empty) at Stop; Wait runs
// `synchronize`. `clock` must outlive the timer.
std::unique_ptr<BlockTimer> HostClockTimer(Clock* clock, std::function<void()> synchronize, std::string description);

}  // namespace torchscan
