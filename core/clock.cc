#include "core/clock.h"

#include <chrono>

namespace torchscan {
namespace {

class SteadyClockImpl final : public Clock {
 public:
  double NowSeconds() override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  std::string Name() const override { return "std::chrono::steady_clock"; }
};

}  // namespace

Clock* SteadyClock() {
  static SteadyClockImpl clock;
  return &clock;
}

}  // namespace torchscan
