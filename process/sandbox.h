// A child's private view of the machine (a job's worker and its RSS children), built with the
// kernel's own namespaces: a new mount namespace whose root is an empty tmpfs holding only the
// paths it is given, a new network namespace (no interface up: no network at all), and new
// IPC and UTS namespaces. When the parent is root (a shared torchscand) nothing more is needed;
// otherwise a user namespace maps the parent's own user and group to themselves first, which
// the kernel must allow (unprivileged user namespaces).
//
// Why these and not bubblewrap: the worker's early children (pre_exec.h) must share its sandbox
// and stay its own children, reaped by pid; bubblewrap puts a monitor process between a program
// and its children. Everything here is prepared in the parent, so that the forked child runs
// system calls only (async-signal-safe), as the rest of pre_exec.h.
//
// What the child sees, in this order: a private /tmp and /dev/shm (tmpfs), the device nodes in
// `devices`, /proc (read-only; when the parent is root a /proc of its own that lists only the
// processes the child may trace, hidepid=invisible), `read_only` paths (read-only with every mount below them)
// (directories bound recursively; a symbolic link is copied as a link, its target resolved and bound as well), then
// `hidden` paths masked (an empty directory, or /dev/null for a file) where they lie under a visible path, then
// `read_write` paths (after the masks, so a job's folder is visible inside a masked state folder). The new root is
// read-only; anything not listed does not exist.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace torchscan::process {

struct SandboxSpec {
  // An existing empty directory of the parent's (absolute; neither on nor above a read_only or
  // read_write path): the mount point of the new root inside the child's mount namespace.
  // Nothing is mounted there in the parent's namespace.
  std::string root;
  std::vector<std::string> read_only;   // absolute paths that must exist
  std::vector<std::string> hidden;      // absolute; a path that does not exist is skipped
  std::vector<std::string> read_write;  // absolute directories that must exist
  std::vector<std::string> devices;     // device nodes; one that does not exist is skipped
};

// The default device nodes: null, zero, full, random, urandom, and any /dev/nvidia* present.
std::vector<std::string> DefaultSandboxDevices();

class SandboxPlan {
 public:
  // Resolves and checks every path of `spec` now. kInvalidArgument names the path and why
  // (not absolute, missing, root not an empty directory or on a listed path).
  static absl::StatusOr<SandboxPlan> Prepare(const SandboxSpec& spec);

  // In the forked child, before it switches user: builds the sandbox and enters it (its
  // working directory becomes "/"). nullptr when done, else which step failed ("torchscan
  // launcher: sandbox: cannot ...", no newline) with errno set by the call that failed, for
  // the caller to write and exit with.
  const char* Apply() const;

 public:
  // One system call (or a few) of Apply; public for the planner in sandbox.cc only.
  struct Step {
    enum class Kind { kUnshare, kWrite, kPrivate, kTmpfs, kProc, kMkdir, kTouch, kSymlink, kBind, kReadOnly, kPivot };
    Kind kind;
    std::string a, b;         // paths; kWrite: file and text; kTmpfs, kProc: options and mount point
    int mode = 0;             // kMkdir, kTouch; kUnshare: the namespaces
    unsigned long flags = 0;  // kReadOnly: the mount flags to keep
    std::string failed;       // the line Apply returns when this step fails
  };

 private:
  std::vector<Step> steps_;
};

}  // namespace torchscan::process
