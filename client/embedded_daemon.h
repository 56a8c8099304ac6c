// The client's embedded default: a private torchscand on a private unix socket and state
// directory, started on demand and stopped (and its directory removed) when this object
// goes away, so one command runs a job on a fresh machine with no set-up. It runs in its own
// process group (a terminal's Ctrl-C reaches the client alone) and gets SIGTERM if the
// client dies without stopping it. Every daemon the client starts (this one, and the resident
// personal one of client/personal_daemon.h) is started by LaunchDaemon, through process/.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace torchscan {

// The private daemon's max_upload_bytes: 180 MiB, where a shared daemon's default is
// kDefaultMaxUploadBytes (proto/spec_limits.h).
// Not more: the daemon stores the spec as JSON (uploaded bytes in base64, 4/3 their size),
// and the worker reads it back with io/file_io.h's ReadFile, which stops at 256 MiB.
inline constexpr int64_t kPrivateMaxUploadBytes = int64_t{180} << 20;

struct EmbeddedDaemonOptions {
  // torchscand to run. Empty (default): $TORCHSCAND, else torchscand beside this program,
  // else ../daemon/torchscand relative to it (the Bazel output layout), else $PATH.
  std::string daemon_path;
  double start_timeout_s = 30;  // how long to wait for its socket to answer
  // Keep a warm spare worker, as a resident daemon does (benchmarks that stand in for one).
  // Default false: a private daemon runs one command's jobs and stops.
  bool spare_worker = false;
  // Run its jobs in the namespaces sandbox, as a resident daemon does (benchmarks of the
  // sandbox's cost). Default false: the caller is a private daemon's only user.
  bool sandboxed = false;
  // Called with the daemon's state folder (not yet created) before the daemon starts, to fill
  // it (benchmarks that load a daemon with stored jobs); its error is Start's. Default: none.
  std::function<absl::Status(const std::string& state_dir)> prepare_state;
};

class EmbeddedDaemon {
 public:
  // Starts the daemon and waits until it answers. NotFound naming the places searched when
  // no torchscand exists; Unavailable with the daemon's last stderr lines when it exits or
  // does not answer in time.
  static absl::StatusOr<std::unique_ptr<EmbeddedDaemon>> Start(const EmbeddedDaemonOptions& options = {});
  // Stops the daemon (SIGTERM, then SIGKILL after 10 s) and removes its directory.
  ~EmbeddedDaemon();

  const std::string& address() const { return address_; }
  int pid() const { return pid_; }  // the daemon's process id (benchmarks read its memory from /proc)

 private:
  EmbeddedDaemon() = default;
  std::string directory_;
  std::string address_;
  int pid_ = 0;
};

// The arguments every daemon of the user's own takes (private or personal): --worker-user root
// when run as root, the private upload limit.
std::vector<std::string> OwnDaemonArgs();

struct DaemonLaunch {
  std::string binary;             // torchscand
  std::vector<std::string> args;  // its arguments
  std::string address;            // where it will answer
  std::string log_path;           // its stderr, appended to
  double start_timeout_s = 30;
  // false: a private daemon (own process group, SIGTERM when the client ends); true: a
  // resident one (own session, outlives the client).
  bool resident = false;
};

// Starts torchscand and waits until `address` answers. Returns its pid. Unavailable with the
// log's last lines when it exits or does not answer in time (and it is then killed).
absl::StatusOr<int> LaunchDaemon(const DaemonLaunch& launch);

// Where the embedded daemon binary is, per EmbeddedDaemonOptions::daemon_path's rules.
absl::StatusOr<std::string> FindDaemonBinary(const std::string& explicit_path);

}  // namespace torchscan
