// A child's private view of the machine (a job's worker and its RSS children), built with the
// kernel's own namespaces: a new PID namespace (the child is its process 1: no other process
// of the machine exists for it, and when it ends every process it left ends with it), a new
// mount namespace whose root is an empty tmpfs holding only the paths it is given, a new
// network namespace (no interface up: no network at all), and new IPC and UTS namespaces.
// When the parent is root (a shared torchscand) nothing more is needed; otherwise a user
// namespace maps the parent's own user and group to themselves first, which the kernel must
// allow (unprivileged user namespaces).
//
// The PID namespace (and the user namespace) can only be entered by a new process: the child
// is made with ForkInto, not fork. As its namespace's process 1 it gets only the signals it
// has a handler for from itself and its own children (the kernel's rule for an init); SIGKILL
// from the parent, and faults, end it as any process.
//
// Why these and not bubblewrap: the worker's early children (pre_exec.h) must share its sandbox
// and stay its own children, reaped by pid; bubblewrap puts a monitor process between a program
// and its children. Everything here is prepared in the parent, so that the forked child runs
// system calls only (async-signal-safe), as the rest of pre_exec.h.
//
// What the child sees, in this order: a private /tmp and /dev/shm (tmpfs, each at most
// `tmpfs_bytes`), the device nodes in `devices`, a /proc of its own (read-only; it lists only
// the PID namespace's processes, and of those only the ones the child may trace:
// hidepid=invisible), `read_only` paths (read-only with every mount below them)
// (directories bound recursively; a symbolic link is copied as a link, its target resolved and bound as well), then
// `hidden` paths masked (an empty directory, or /dev/null for a file) where they lie under a visible path, then
// `read_write` paths (after the masks, so a job's folder is visible inside a masked state folder). The new root is
// read-only; anything not listed does not exist.
#pragma once

#include <sys/types.h>

#include <cstdint>
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
  int64_t tmpfs_bytes = 0;              // size= of /tmp and of /dev/shm each; 0: the kernel's default (half of RAM)
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

  // The namespaces the child must be created in (clone flags): a PID namespace, and a user
  // namespace when the parent is not root.
  int clone_flags() const { return clone_flags_; }

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
  int clone_flags_ = 0;
};

// fork() for a child that will Apply `plan` (nullptr: a plain fork()): the child is created in
// the plan's clone_flags namespaces by the clone system call itself, so no fork handlers run
// and the C library's view of threads is not renewed in it: until it executes a program the
// child may make system calls only (as after vfork). Returns as fork does: the child's pid as
// the parent sees it, 0 in the child, -1 with errno.
pid_t ForkInto(const SandboxPlan* plan);

}  // namespace torchscan::process
