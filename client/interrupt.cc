#include "client/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>

namespace torchscan {
namespace {

// Shared with the async-signal handler: only atomics and a pipe.
std::atomic<int> g_signal{0};
int g_pipe[2] = {-1, -1};
struct sigaction g_previous_int, g_previous_term;

void OnSignal(int signal) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, signal)) {
    static const char kMessage[] = "\ntorchscan-client: interrupted again: exiting now\n";
    (void)!::write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
    ::_exit(130);
  }
  const char byte = 's';
  (void)!::write(g_pipe[1], &byte, 1);
}

}  // namespace

InterruptWatch::InterruptWatch(std::function<void()> on_interrupt) : on_interrupt_(std::move(on_interrupt)) {
  g_signal = 0;
  if (::pipe2(g_pipe, O_CLOEXEC) != 0) g_pipe[0] = g_pipe[1] = -1;
  helper_ = std::thread([this] {
    char byte = 0;
    while (true) {
      const ssize_t n = ::read(g_pipe[0], &byte, 1);
      if (n < 0 && errno == EINTR) continue;
      if (n != 1 || byte != 's') return;  // 'q' from the destructor, or a broken pipe
      if (on_interrupt_) on_interrupt_();
    }
  });
  struct sigaction action {};
  action.sa_handler = &OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, &g_previous_int);
  ::sigaction(SIGTERM, &action, &g_previous_term);
}

InterruptWatch::~InterruptWatch() {
  ::sigaction(SIGINT, &g_previous_int, nullptr);
  ::sigaction(SIGTERM, &g_previous_term, nullptr);
  const char byte = 'q';
  (void)!::write(g_pipe[1], &byte, 1);
  if (helper_.joinable()) helper_.join();
  ::close(g_pipe[0]);
  ::close(g_pipe[1]);
  g_pipe[0] = g_pipe[1] = -1;
}

bool InterruptWatch::interrupted() const { return g_signal.load() != 0; }

int InterruptWatch::signal() const { return g_signal.load(); }

const char* InterruptName(int signal) {
  if (signal == SIGINT) return "Ctrl-C";
  if (signal == SIGTERM) return "SIGTERM";
  return "a signal";
}

}  // namespace torchscan
