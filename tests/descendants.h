// The processes below a test: find a child by its program, and see how a process whose parent
// died ended (a worker after kill -9 of torchscand, an RSS child after its worker).
//
// While an OrphanAdopter lives, the test process is a child subreaper
// (prctl PR_SET_CHILD_SUBREAPER): a descendant whose parent dies is re-parented to the test
// instead of to init (or a container's pid 1), stays a zombie until the test reaps it, and
// its wait status says how it ended; its pid cannot be reused meanwhile. So a test can assert
// that an orphan ended by itself within a bound, and of what, without killing it.
#pragma once

#include <sys/types.h>

#include <string>

namespace torchscan::e2e {

// True while `pid` runs (its /proc/PID/stat exists and its state is not Z, a zombie).
bool AliveNotZombie(pid_t pid);

// The parent of `pid` from /proc/PID/stat; 0 when it cannot be read (no such process).
pid_t ParentOf(pid_t pid);

// True once no process of process group `pgid` is left (a worker's, after its job); false
// after 5 s.
bool GroupGone(pid_t pgid);

// Waits (at most `timeout_s`, looking every 5 ms) for a child of `parent` running `program`
// (its name as /proc/PID/stat has it, truncated to 15 characters); its pid, or 0 if none
// appeared.
pid_t WaitForChild(pid_t parent, const std::string& program, double timeout_s = 60);

class OrphanAdopter {
 public:
  OrphanAdopter();   // the test process becomes a child subreaper (a gtest failure if refused)
  ~OrphanAdopter();  // and stops being one; what it adopted stays its children
  OrphanAdopter(const OrphanAdopter&) = delete;
  OrphanAdopter& operator=(const OrphanAdopter&) = delete;

  struct End {
    // "killed by signal 9 (SIGKILL)", "exited with status N", or why there is no end:
    // "still running after T s", "not a child of the test process (its parent is P)", or, for
    // one that no longer exists and was never the test's, "gone, reaped in its PID namespace".
    std::string how;
    double seconds = 0;  // from the call until it was reaped
  };
  // Waits at most `timeout_s` for `pid`, a child of the test process (adopted or not), to end
  // and reaps it. Never kills it.
  static End WaitForEnd(pid_t pid, double timeout_s);
};

}  // namespace torchscan::e2e
