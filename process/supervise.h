// Supervising a started child (spawn.h) until it ends: waiting with a wall-time limit and a
// cancel, handing on its stdout lines meanwhile, then killing and reaping it, or its whole
// process group. Blocks the calling thread; never throws. The caller must be the child's
// parent (waitpid).
//
// Why a child is left a zombie until it is killed and reaped here: its pid, and with it its
// process group's id, cannot be taken by another process before the group is killed.
//
// Failure cases: a pid that is not a child of this process counts as ended at once (waitid
// fails with ECHILD), and its status is then unreadable (nullopt). Group members handed to
// another reaper are waited for until it reaped them, at most 10 s.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>

#include "process/control.h"
#include "process/output_pump.h"

namespace torchscan::process {

using Clock = std::chrono::steady_clock;

// When to stop waiting for a child that has not ended.
struct Watch {
  Clock::time_point start = Clock::now();   // the limit counts from here
  double limit_s = 0;                       // past it: kTimedOut; 0 = no limit
  const Control* control = nullptr;         // killed: kKilled (at once: its wake_fd is polled)
  const std::atomic<bool>* stop = nullptr;  // true: kKilled, seen within 20 ms
};

enum class End {
  kExited,    // ended by itself (exited or killed by a signal nobody here sent)
  kTimedOut,  // past Watch.limit_s
  kKilled,    // Watch.control killed, or Watch.stop set
  kDone,      // WaitForEnd's `done` became true first (the child still runs)
};

double SecondsSince(Clock::time_point start);

// True once child `pid` has ended (or is no child of this process), leaving it a zombie.
bool Ended(int pid);

// Reads `pump` (may be null) while waiting; returns the first of: control killed or stop set,
// limit passed, the child ended, `done()` (may be empty) true. Each is looked at after every
// read, which happens when output arrives, when control is killed, or at the latest every
// 50 ms (2 ms once the pump saw end of file: the child is exiting; from 1 ms growing to 20 ms
// without a pump).
End WaitForEnd(int pid, OutputPump* pump, const Watch& watch, const std::function<bool()>& done = {});

// Kills the child when it did not end by itself (`end` other than kExited) and, with
// `own_group`, what is left of its process group (SIGKILL to each), then reaps the child and
// returns once none of the group is left (reaping the members handed to this process: a
// child subreaper, PR_SET_CHILD_SUBREAPER, gets its children's orphans). Without `own_group`
// only the child is killed and reaped: the group is not the child's. Returns its raw wait
// status; nullopt when it could not be read.
std::optional<int> KillAndReap(int pid, End end, bool own_group);

struct Ending {
  End end = End::kExited;
  std::optional<int> status;  // raw wait status (exit_status.h decodes it)
  double wall_s = 0;          // from watch.start to the reaping
};

// WaitForEnd, KillAndReap, then the pump's Finish: lines left in the pipe are handed on only
// when the child exited by itself.
Ending Supervise(int pid, OutputPump* pump, const Watch& watch, bool own_group);

}  // namespace torchscan::process
