// One supervised program start to end: its descriptors (stdio.h: stdout lines handed on,
// stderr into a file, stdin /dev/null), the spawn with its set-up (spawn.h), then supervise.h
// until it ends, is killed or runs past its wall time, and the kill and reaping of it (and of
// its process group, with setup.own_process_group). Blocks the calling thread; never throws.
// The program dies with the calling thread (PR_SET_PDEATHSIG): that thread must outlive it.
//
// Failure cases (RunResult.started false): `control` killed before the start (end kKilled,
// nothing started, wall_s 0); the descriptors or the spawn failed (`error`, spawn.h; wall_s
// counts to the failure). Once started, however the program ends is a RunResult with its
// End and raw wait status (nullopt when unreadable).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "process/control.h"
#include "process/spawn.h"
#include "process/supervise.h"

namespace torchscan::process {

struct RunOptions {
  SpawnOptions spawn;          // its setup's stdin/stdout/stderr are set by Run
  std::string stderr_path;     // created or truncated; "" = /dev/null
  double wall_time_s = 0;      // killed (SIGKILL) past this, from the start of Run; 0 = no limit
  Control* control = nullptr;  // may be null
};

struct RunResult {
  bool started = false;
  SpawnError error;           // when it did not start (and was not killed before)
  Spawned spawned;            // when it started
  End end = End::kKilled;     // how the wait ended (kKilled also when killed before the start)
  std::optional<int> status;  // raw wait status once started
  double wall_s = 0;
};

// `on_line` gets each stdout line (output_pump.h); `on_start` (may be empty) is called once
// the program runs, before any line.
RunResult Run(const RunOptions& options, const std::function<void(const std::string&)>& on_line,
              const std::function<void(const Spawned&)>& on_start = {});

}  // namespace torchscan::process
