#include "core/block_timer.h"

#include <utility>

namespace torchscan {
namespace {

class HostClock : public BlockTimer {
 public:
  HostClock(Clock* clock, std::function<void()> synchronize, std::string description)
      : clock_(clock), synchronize_(std::move(synchronize)), description_(std::move(description)) {}

  void Start() override { start_ = clock_->NowSeconds(); }
  double Stop() override {
    Wait();
    return clock_->NowSeconds() - start_;
  }
  void Wait() override {
    if (synchronize_) synchronize_();
  }
  std::string Describe() const override { return description_; }

 private:
  Clock* clock_;
  std::function<void()> synchronize_;
  std::string description_;
  double start_ = 0;
};

}  // namespace

std::unique_ptr<BlockTimer> HostClockTimer(Clock* clock, std::function<void()> synchronize, std::string description) {
  return std::make_unique<HostClock>(clock, std::move(synchronize), std::move(description));
}

}  // namespace torchscan
