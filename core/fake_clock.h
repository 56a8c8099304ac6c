// Test-only clock: time moves only when told, so timing tests get exact durations.
#pragma once

#include <string>

#include "core/clock.h"

namespace torchscan {

class FakeClock final : public Clock {
 public:
  // Each NowSeconds() returns the current time, then advances it by `read_cost` seconds
  // (the clock's own overhead as the runner sees it).
  explicit FakeClock(double read_cost = 0) : read_cost_(read_cost) {}
  double NowSeconds() override {
    const double t = now_;
    now_ += read_cost_;
    return t;
  }
  std::string Name() const override { return "fake"; }
  void Advance(double seconds) { now_ += seconds; }

 private:
  double read_cost_;
  double now_ = 0;
};

}  // namespace torchscan
