// The clock the timing runner reads. Injected so that tests drive the runner with a fake
// clock and exact durations (leveldb's Env::NowMicros is the model).
#pragma once

#include <string>

namespace torchscan {

class Clock {
 public:
  virtual ~Clock() = default;
  // Seconds since an arbitrary fixed origin; never decreases.
  virtual double NowSeconds() = 0;
  // Recorded in the report's timing settings, e.g. "steady_clock".
  virtual std::string Name() const = 0;
};

// std::chrono::steady_clock. Shared, stateless, never null.
Clock* SteadyClock();

}  // namespace torchscan
