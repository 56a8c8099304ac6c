// Lets another thread stop a supervised process (supervise.h): Kill asks the supervisor to
// kill it with SIGKILL and to report `reason`. Thread-safe.
//
// Failure cases: the first reason wins (later Kill calls are ignored). If the wake-up
// descriptor cannot be made (eventfd fails: out of descriptors), wake_fd() is -1 and a
// supervisor sees a Kill only at its next poll (within 50 ms) instead of at once.
#pragma once

#include <mutex>
#include <string>

namespace torchscan::process {

class Control {
 public:
  Control();
  ~Control();
  Control(const Control&) = delete;
  Control& operator=(const Control&) = delete;

  // Before a launch: the process is never started (run.h).
  void Kill(const std::string& reason);
  bool killed() const;
  std::string reason() const;
  int wake_fd() const { return event_fd_; }  // readable once Kill was called

 private:
  mutable std::mutex mu_;
  bool killed_ = false;
  std::string reason_;
  int event_fd_ = -1;
};

}  // namespace torchscan::process
