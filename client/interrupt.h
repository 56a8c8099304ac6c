// Ctrl-C (SIGINT) and SIGTERM while a command waits on a daemon. The first signal is
// recorded and reported to a callback on a helper thread (which can end the waits, e.g.
// DaemonClient::StopWatching), so the command decides what becomes of its job; a second
// signal exits at once with 130 (kExitInterrupted). No gRPC.
#pragma once

#include <functional>
#include <thread>

namespace torchscan {

class InterruptWatch {
 public:
  // Installs the handlers (one InterruptWatch at a time per process); `on_interrupt` runs once,
  // on the helper thread, at the first signal.
  explicit InterruptWatch(std::function<void()> on_interrupt);
  // Restores the previous handlers and stops the helper thread.
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  // Whether a signal came; its number (SIGINT, SIGTERM), 0 when none.
  bool interrupted() const;
  int signal() const;

 private:
  std::function<void()> on_interrupt_;
  std::thread helper_;
};

// "Ctrl-C" for SIGINT, "SIGTERM" for SIGTERM, else "signal N".
const char* InterruptName(int signal);

}  // namespace torchscan
