// Helpers for end-to-end tests that run the real binaries: runfile paths, a real torchscand
// process on a unix socket in the test's temporary folder, and torchscan-client runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace torchscan::e2e {

// Absolute path of a runfile given as a workspace-relative path ("client/torchscan-client").
std::string Runfile(const std::string& path);

// A new folder under $TEST_TMPDIR.
std::string TempDir(const std::string& name);

// The bytes of the file at `path`; empty when it cannot be read.
std::string Slurp(const std::string& path);

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out;     // stdout
  std::string err;     // stderr
};

// Runs `program` with `args` to completion (at most `timeout_s`, then SIGKILL), in
// WorkingDir(), so that what a client writes to ./torchscan-<job id>/ (no --output) stays in
// the test's own folder.
CommandResult Run(const std::string& program, const std::vector<std::string>& args, double timeout_s = 300);

// The project environment's Python (scripts/setup.sh): $TORCHSCAN_VENV/bin/python, by default
// /opt/torchscan/venv/bin/python. It has the pinned torch: tests save their models with it, the
// way a user of this LibTorch saves them.
std::string ProjectPython();

// The working folder of every command Run starts: $TEST_TMPDIR/cwd.
std::string WorkingDir();

// A command running in the background (in WorkingDir()), for tests that signal it.
class Background {
 public:
  Background(const std::string& program, const std::vector<std::string>& args);
  ~Background();  // SIGKILL if it still runs
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  int pid() const;
  std::string Err() const;  // its stderr so far
  // Waits (at most `timeout_s`) until its stderr holds `text`; false if it never does.
  bool WaitForErr(const std::string& text, double timeout_s = 60) const;
  // Waits for it to end (at most `timeout_s`, then SIGKILL).
  CommandResult Wait(double timeout_s = 120);

 private:
  struct Process;
  std::string base_;
  std::unique_ptr<Process> process_;
};

// A torchscand with the real worker, on a unix socket in a short folder under /tmp.
class TestDaemon {
 public:
  TestDaemon(std::string state_dir, std::vector<std::string> extra_flags = {});
  ~TestDaemon();  // SIGTERM, then SIGKILL

  // The constructor starts the daemon. Start() restarts it after Kill9() (a daemon still running
  // is a logic error: a second one would find the state folder locked and exit) and waits
  // until its socket answers.
  void Start();
  void Kill9();  // kill -9 and reap
  bool Running();
  int pid() const;

  const std::string& address() const { return address_; }
  const std::string& state_dir() const { return state_dir_; }

  // torchscan-client --daemon <address> <args...>
  CommandResult Client(const std::vector<std::string>& args, double timeout_s = 300) const;

 private:
  struct Process;
  std::string state_dir_;
  std::string socket_dir_;  // short, under /tmp
  std::vector<std::string> extra_flags_;
  std::string address_;
  std::unique_ptr<Process> process_;
};

}  // namespace torchscan::e2e
