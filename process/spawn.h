// Starts a program in a child process with a set-up applied before its exec (pre_exec.h),
// optionally with early children started between that set-up and the exec. fork() and
// execv() (no PATH search), with the parent's environment; the exec's result comes back
// through a close-on-exec pipe, so that Spawn returns only once the program runs (or could
// not be started).
//
// Failure cases (Spawn returns false with `error` set, and leaves no process behind):
//   error.exec false: a descriptor of the early children could not be made (error.text:
//     "the descriptors of its <early.name>: <system error>"), or a pipe ("pipe: <error>");
//   error.exec true: the fork or the exec failed (error.text: the system's words, e.g. "No
//     such file or directory"). A child whose exec failed is reaped here, after it killed and
//     reaped its early children.
// A set-up step that fails is no failure of Spawn: the child exits with
// SetUp.failed_exit_code before the exec (its reason on its stderr), which the supervisor sees.
// Fork handlers (pthread_atfork) run as for any fork: call Spawn from the thread that runs
// any library whose handlers could hang (OpenBLAS; passes/peak_rss.h says why). With a
// sandbox the child is made by ForkInto (sandbox.h) in new namespaces, and none runs.
#pragma once

#include <string>
#include <vector>

#include "process/pre_exec.h"

namespace torchscan::process {

struct SpawnOptions {
  std::string path;               // the program; required
  std::vector<std::string> args;  // argv[1...]; the early children's words follow
  SetUp setup;
  EarlyChildren early;  // none by default
  // "NAME=value" each, set for the program (and its early children) over the launcher's own
  // environment, which it inherits otherwise.
  std::vector<std::string> environment;
};

struct SpawnError {
  bool exec = false;  // the program could not be started (fork, exec), rather than a descriptor
  std::string text;
  std::string call;  // with exec: "fork() failed" or "execve failed"
};

struct Spawned {
  int pid = 0;            // the program's process (also its group's id with own_process_group)
  int early_started = 0;  // early children actually forked (fewer than asked when a fork failed)
};

bool Spawn(const SpawnOptions& options, Spawned* spawned, SpawnError* error);

}  // namespace torchscan::process
