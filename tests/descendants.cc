#include "tests/descendants.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

struct Stat {
  std::string comm;
  char state = 0;  // R, S, D, Z (zombie), ...
  pid_t parent = 0;
};

// /proc/PID/stat is "PID (COMM) S PPID ..."; COMM may hold spaces and parentheses.
bool ReadStat(pid_t pid, Stat* out) {
  const std::string stat = Slurp("/proc/" + std::to_string(pid) + "/stat");
  const size_t open = stat.find('('), close = stat.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close + 4 >= stat.size()) return false;
  out->comm = stat.substr(open + 1, close - open - 1);
  out->state = stat[close + 2];
  out->parent = std::atoi(stat.c_str() + close + 4);
  return true;
}

}  // namespace

bool AliveNotZombie(pid_t pid) {
  Stat stat;
  return ReadStat(pid, &stat) && stat.state != 'Z';
}

pid_t ParentOf(pid_t pid) {
  Stat stat;
  return ReadStat(pid, &stat) ? stat.parent : 0;
}

bool GroupGone(pid_t pgid) {
  for (int i = 0; i < 500; ++i) {
    if (::kill(-pgid, 0) != 0 && errno == ESRCH) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

pid_t WaitForChild(pid_t parent, const std::string& program, double timeout_s) {
  const std::string comm = program.substr(0, 15);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    std::unique_ptr<DIR, int (*)(DIR*)> proc(::opendir("/proc"), ::closedir);
    while (dirent* entry = proc ? ::readdir(proc.get()) : nullptr) {
      const pid_t pid = std::atoi(entry->d_name);
      Stat stat;
      if (pid > 0 && ReadStat(pid, &stat) && stat.parent == parent && stat.comm == comm) return pid;
    }
    if (std::chrono::steady_clock::now() > deadline) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

OrphanAdopter::OrphanAdopter() {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) ADD_FAILURE() << "prctl(PR_SET_CHILD_SUBREAPER): " << ::strerror(errno);
}

OrphanAdopter::~OrphanAdopter() { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }

OrphanAdopter::End OrphanAdopter::WaitForEnd(pid_t pid, double timeout_s) {
  const auto start = std::chrono::steady_clock::now();
  const auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  End end;
  while (true) {
    int status = 0;
    const pid_t reaped = ::waitpid(pid, &status, WNOHANG);
    if (reaped == pid) {
      end.seconds = since();
      if (WIFSIGNALED(status)) {
        end.how = "killed by signal " + std::to_string(WTERMSIG(status)) + " (SIG" +
                  (::sigabbrev_np(WTERMSIG(status)) ? ::sigabbrev_np(WTERMSIG(status)) : "?") + ")";
      } else {
        end.how = "exited with status " + std::to_string(WEXITSTATUS(status));
      }
      return end;
    }
    if (reaped < 0 && errno != EINTR) {
      // Process 1 of a sandboxed job's PID namespace reaps the namespace's processes itself.
      if (::kill(pid, 0) != 0 && errno == ESRCH) {
        end.how = "gone, reaped in its PID namespace";
        return end;
      }
      end.how = "not a child of the test process (its parent is " + std::to_string(ParentOf(pid)) + ")";
      return end;
    }
    if (since() > timeout_s) {
      end.seconds = since();
      end.how = "still running after " + std::to_string(timeout_s) + " s";
      return end;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace torchscan::e2e
