#include "process/control.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace torchscan::process {

Control::Control() : event_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

Control::~Control() {
  if (event_fd_ >= 0) ::close(event_fd_);
}

void Control::Kill(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  if (killed_) return;
  killed_ = true;
  reason_ = reason;
  const uint64_t one = 1;
  if (event_fd_ >= 0) (void)!::write(event_fd_, &one, sizeof(one));
}

bool Control::killed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return killed_;
}

std::string Control::reason() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reason_;
}

}  // namespace torchscan::process
