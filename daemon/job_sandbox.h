// The sandbox each job's worker and its RSS children run in (DaemonConfig.sandbox
// "namespaces"; process/sandbox.h says how it is built): what it shows is decided once, at the
// daemon's start, and each job adds its own folder.
//
// Read-only: the system's programs, libraries and settings (/usr, /bin, /sbin, /lib*, /etc,
// /sys), the worker and the RSS child programs and every library they load (as the dynamic
// loader resolves them, from `ldd`), and DaemonConfig.shared_paths. Hidden even there: the
// state folder, the configuration file it was started with (wherever it lies), the token file, the TLS key, certificate
// and CA, /etc/torchscan (the deployed configuration), /etc/shadow, /etc/gshadow, /etc/ssh and /etc/sudoers(.d).
// Writable: the job's own folder. No network, a private /tmp. Needs root (a shared torchscand) or unprivileged user
// namespaces. Used by job_runner.h for every job's worker; DaemonInfo.config.sandbox says whether it is on.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "process/sandbox.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

class JobSandbox {
 public:
  // From a validated configuration. Creates the empty
  // <state_dir>/sandbox folder (the new root's mount point). kFailedPrecondition naming the
  // path when a program's libraries cannot be listed or a folder cannot be made.
  static absl::StatusOr<JobSandbox> Create(const v1::DaemonConfig& config, int64_t tmpfs_bytes = 0);

  // The plan for a worker whose writable folder is `job_dir` (absolute, existing).
  absl::StatusOr<std::shared_ptr<const process::SandboxPlan>> PlanFor(const std::string& job_dir) const;

  // Runs /bin/true in the sandbox as `uid`/`gid` (-1: the daemon's): OK, or kFailedPrecondition
  // with the step the kernel refused.
  absl::Status Probe(int uid, int gid) const;

  const process::SandboxSpec& base() const { return base_; }

 private:
  process::SandboxSpec base_;
};

}  // namespace torchscan::daemon
