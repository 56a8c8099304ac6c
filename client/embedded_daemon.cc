#include "client/embedded_daemon.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "client/daemon_client.h"
#include "io/file_io.h"
#include "process/fd.h"
#include "process/find_program.h"
#include "process/spawn.h"
#include "process/supervise.h"
#include "worker/state_folder.h"

namespace torchscan {
namespace {

namespace fs = std::filesystem;

bool IsExecutable(const fs::path& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p); }

std::string Tail(const std::string& path, size_t max_chars = 2000) {
  const std::string text = ReadFile(path).value_or("");
  return text.size() > max_chars ? text.substr(text.size() - max_chars) : text;
}

}  // namespace

absl::StatusOr<std::string> FindDaemonBinary(const std::string& explicit_path) {
  if (!explicit_path.empty()) {
    if (IsExecutable(explicit_path)) return explicit_path;
    return absl::NotFoundError("--torchscand: " + explicit_path + " is not an executable file");
  }
  if (const char* env = std::getenv("TORCHSCAND"); env && *env) {
    if (IsExecutable(env)) return std::string(env);
    return absl::NotFoundError(std::string("TORCHSCAND=") + env + " is not an executable file");
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> candidates;
  if (!ec) {
    candidates.push_back(self.parent_path() / "torchscand");
    candidates.push_back(self.parent_path().parent_path() / "daemon" / "torchscand");
  }
  for (const fs::path& p : candidates)
    if (IsExecutable(p)) return p.string();
  if (const std::string on_path = process::FindProgram("torchscand"); IsExecutable(on_path)) return on_path;
  std::string searched;
  for (const fs::path& p : candidates) searched += p.string() + ", ";
  return absl::NotFoundError("no torchscand found (searched $TORCHSCAND, " + searched +
                             "$PATH): build it with `bazel build //daemon:torchscand` or pass --torchscand PATH");
}

std::vector<std::string> OwnDaemonArgs() {
  std::vector<std::string> args;
  // The user's own daemon runs the user's jobs as the user: as root it keeps root rather than
  // switching to "nobody", who could not reach binaries under /root.
  if (::geteuid() == 0) args.insert(args.end(), {"--worker-user", "root"});
  // Files travel with the job (client/job_files.h): the user's own daemon takes larger ones.
  args.insert(args.end(), {"--max-upload", std::to_string(kPrivateMaxUploadBytes)});
  // The caller is its only user: its jobs may read what the caller can (daemon/job_sandbox.h
  // guards a shared daemon), and `info` says "sandbox off".
  return args;
}

absl::StatusOr<int> LaunchDaemon(const DaemonLaunch& launch) {
  const process::Fd log(::open(launch.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (!log.valid()) return absl::UnavailableError("cannot write the daemon's log " + launch.log_path);
  const process::Fd null(::open("/dev/null", O_RDWR | O_CLOEXEC));
  process::SpawnOptions spawn;
  spawn.path = launch.binary;
  spawn.args = launch.args;
  spawn.setup.stdin_fd = null.get();
  spawn.setup.stdout_fd = null.get();
  spawn.setup.stderr_fd = log.get();
  // A private daemon: its own process group, so that a terminal's Ctrl-C reaches only the
  // client, which decides what becomes of the job (run_job_commands.h), and SIGTERM when the
  // client dies without stopping it (kill -9, a second Ctrl-C), so that none outlives its
  // command. A resident one: a session of its own, no terminal, and no signal when the client ends.
  spawn.setup.own_process_group = true;
  spawn.setup.new_session = launch.resident;
  spawn.setup.parent_death_signal = launch.resident ? 0 : SIGTERM;
  process::Spawned spawned;
  process::SpawnError error;
  if (!process::Spawn(spawn, &spawned, &error))
    return absl::UnavailableError("cannot start " + launch.binary + ": " + error.text);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(launch.start_timeout_s);
  const std::string what = launch.resident ? "the resident torchscand" : "the private torchscand";
  while (std::chrono::steady_clock::now() < deadline) {
    if (process::Ended(spawned.pid)) {
      process::KillAndReap(spawned.pid, process::End::kExited, false);
      return absl::UnavailableError(what + " exited during start-up: " + Tail(launch.log_path));
    }
    if (DaemonClient::Connect(launch.address, {}, 0.2).ok()) return spawned.pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // no socket yet fails at once
  }
  process::KillAndReap(spawned.pid, process::End::kTimedOut, false);
  return absl::UnavailableError(what + " did not answer within " + std::to_string(launch.start_timeout_s) +
                                " s: " + Tail(launch.log_path));
}

absl::StatusOr<std::unique_ptr<EmbeddedDaemon>> EmbeddedDaemon::Start(const EmbeddedDaemonOptions& options) {
  absl::StatusOr<std::string> binary = FindDaemonBinary(options.daemon_path);
  if (!binary.ok()) return binary.status();
  std::string tmpl = worker::kPrivateDaemonFolderTemplate;
  if (!::mkdtemp(tmpl.data())) return absl::InternalError("cannot create a private folder under /tmp for the daemon");
  std::unique_ptr<EmbeddedDaemon> daemon(new EmbeddedDaemon());
  daemon->directory_ = tmpl;
  daemon->address_ = absl::StrCat("unix:", daemon->directory_, "/", worker::kStateSocketFile);
  const std::string state_dir = absl::StrCat(daemon->directory_, "/", worker::kPrivateDaemonStateFolder);
  if (options.prepare_state)
    if (absl::Status s = options.prepare_state(state_dir); !s.ok()) return s;
  DaemonLaunch launch;
  launch.binary = *binary;
  launch.address = daemon->address_;
  launch.log_path = absl::StrCat(daemon->directory_, "/", worker::kPrivateDaemonLogFile);
  launch.start_timeout_s = options.start_timeout_s;
  launch.args = {"--state-dir", state_dir, "--listen", daemon->address_};
  for (std::string& a : OwnDaemonArgs()) launch.args.push_back(std::move(a));
  // No warm spare unless asked: a private daemon runs the command's jobs and stops; a spare
  // started after its last job would only load LibTorch beside the client finishing its
  // output, then die.
  if (!options.spare_worker) launch.args.push_back("--no-spare-worker");
  launch.args.insert(launch.args.end(), {"--sandbox", options.sandboxed ? "namespaces" : "off"});
  absl::StatusOr<int> pid = LaunchDaemon(launch);
  if (!pid.ok()) return pid.status();
  daemon->pid_ = *pid;
  return daemon;
}

EmbeddedDaemon::~EmbeddedDaemon() {
  if (pid_ > 0) {
    if (!process::Ended(pid_)) {
      ::kill(pid_, SIGTERM);
      // Polled: a wait on SIGCHLD could be taken by another thread (gRPC's).
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!process::Ended(pid_) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    process::KillAndReap(pid_, process::Ended(pid_) ? process::End::kExited : process::End::kTimedOut, false);
  }
  std::error_code ec;
  if (!directory_.empty()) fs::remove_all(directory_, ec);
}

}  // namespace torchscan
