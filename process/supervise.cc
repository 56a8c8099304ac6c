#include "process/supervise.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace torchscan::process {
namespace {

constexpr std::chrono::seconds kGroupGoneTimeout(10);

// Waits (at most kGroupGoneTimeout) until no process of group `pgid`, already sent SIGKILL,
// is left, reaping those handed to this process.
void AwaitGroupGone(pid_t pgid) {
  const Clock::time_point deadline = Clock::now() + kGroupGoneTimeout;
  while (Clock::now() < deadline) {
    int status = 0;
    while (::waitpid(-pgid, &status, WNOHANG) > 0) {
    }
    if (::kill(-pgid, 0) != 0 && errno == ESRCH) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// How long the next poll may wait.
int PollTimeoutMs(const OutputPump* pump, const Watch& watch, int* idle_ms) {
  int timeout_ms = 50;
  if (pump == nullptr) {
    timeout_ms = *idle_ms;
    *idle_ms = std::min(*idle_ms * 2, 20);
  } else if (pump->eof()) {
    timeout_ms = 2;
  }
  if (watch.stop != nullptr) timeout_ms = std::min(timeout_ms, 20);
  if (watch.limit_s > 0) {
    const double left = watch.limit_s - SecondsSince(watch.start);
    timeout_ms = std::max(0, std::min(timeout_ms, static_cast<int>(left * 1000) + 1));
  }
  return timeout_ms;
}

}  // namespace

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

bool Ended(int pid) {
  siginfo_t info{};
  const int waited = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  return (waited == 0 && info.si_pid == pid) || (waited != 0 && errno == ECHILD);
}

End WaitForEnd(int pid, OutputPump* pump, const Watch& watch, const std::function<bool()>& done) {
  int idle_ms = 1;
  while (true) {
    if (pump != nullptr && !pump->eof()) pump->Read();
    if ((watch.control != nullptr && watch.control->killed()) || (watch.stop != nullptr && watch.stop->load()))
      return End::kKilled;
    if (watch.limit_s > 0 && SecondsSince(watch.start) >= watch.limit_s) return End::kTimedOut;
    if (Ended(pid)) return End::kExited;
    if (done && done()) return End::kDone;
    pollfd fds[2] = {{pump == nullptr || pump->eof() ? -1 : pump->fd(), POLLIN, 0},
                     {watch.control != nullptr ? watch.control->wake_fd() : -1, POLLIN, 0}};
    ::poll(fds, 2, PollTimeoutMs(pump, watch, &idle_ms));
  }
}

std::optional<int> KillAndReap(int pid, End end, bool own_group) {
  if (own_group) ::kill(-pid, SIGKILL);
  if (end != End::kExited) ::kill(pid, SIGKILL);
  int status = 0;
  pid_t waited;
  while ((waited = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (own_group) AwaitGroupGone(pid);
  if (waited != pid) return std::nullopt;
  return status;
}

Ending Supervise(int pid, OutputPump* pump, const Watch& watch, bool own_group) {
  Ending ending;
  ending.end = WaitForEnd(pid, pump, watch);
  ending.status = KillAndReap(pid, ending.end, own_group);
  if (pump != nullptr) pump->Finish(/*deliver=*/ending.end == End::kExited);
  ending.wall_s = SecondsSince(watch.start);
  return ending;
}

}  // namespace torchscan::process
