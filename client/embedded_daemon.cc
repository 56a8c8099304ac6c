#include "client/embedded_daemon.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>

#include "absl/strings/str_cat.h"
#include "client/daemon_client.h"
#include "io/file_io.h"
#include "worker/state_folder.h"

namespace torchscan {
namespace {

namespace bp = boost::process;
namespace fs = std::filesystem;

bool IsExecutable(const fs::path& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p); }

std::string Tail(const std::string& path, size_t max_chars = 2000) {
  const std::string text = ReadFile(path).value_or("");
  return text.size() > max_chars ? text.substr(text.size() - max_chars) : text;
}

}  // namespace

struct EmbeddedDaemon::Process {
  bp::child child;
  std::string stderr_path;
};

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
  const fs::path on_path = bp::search_path("torchscand").string();
  if (IsExecutable(on_path)) return on_path.string();
  std::string searched;
  for (const fs::path& p : candidates) searched += p.string() + ", ";
  return absl::NotFoundError("no torchscand found (searched $TORCHSCAND, " + searched +
                             "$PATH): build it with `bazel build //daemon:torchscand` or pass --torchscand PATH");
}

absl::StatusOr<std::unique_ptr<EmbeddedDaemon>> EmbeddedDaemon::Start(const EmbeddedDaemonOptions& options) {
  absl::StatusOr<std::string> binary = FindDaemonBinary(options.daemon_path);
  if (!binary.ok()) return binary.status();
  std::string tmpl = worker::kPrivateDaemonFolderTemplate;
  if (!::mkdtemp(tmpl.data())) return absl::InternalError("cannot create a private folder under /tmp for the daemon");
  std::unique_ptr<EmbeddedDaemon> daemon(new EmbeddedDaemon());
  daemon->directory_ = tmpl;
  daemon->address_ = absl::StrCat("unix:", daemon->directory_, "/", worker::kStateSocketFile);
  daemon->process_ = std::make_unique<Process>();
  daemon->process_->stderr_path = absl::StrCat(daemon->directory_, "/", worker::kPrivateDaemonLogFile);
  const std::string state_dir = absl::StrCat(daemon->directory_, "/", worker::kPrivateDaemonStateFolder);
  if (options.prepare_state)
    if (absl::Status s = options.prepare_state(state_dir); !s.ok()) return s;
  std::vector<std::string> args = {"--state-dir", state_dir, "--listen", daemon->address_};
  // A private daemon runs the user's own jobs as the user: as root it keeps root rather than
  // switching to "nobody", who could not reach binaries under /root.
  if (::geteuid() == 0) args.insert(args.end(), {"--worker-user", "root"});
  // Files travel with the job (client/job_files.h): the user's own daemon takes larger ones.
  args.insert(args.end(), {"--max-upload", std::to_string(kPrivateMaxUploadBytes)});
  // No warm spare unless asked: a private daemon runs the command's jobs and stops; a spare
  // started after its last job would only load LibTorch beside the client finishing its
  // output, then die.
  if (!options.spare_worker) args.push_back("--no-spare-worker");
  // The caller is its only user: its jobs may read what the caller can (daemon/job_sandbox.h
  // guards a shared daemon), and `info` says "sandbox off".
  args.insert(args.end(), {"--sandbox", options.sandboxed ? "namespaces" : "off"});
  // Its own process group, so that a terminal's Ctrl-C reaches only the client, which decides
  // what becomes of the job (run_job_commands.h); and SIGTERM when the client dies without
  // stopping it (kill -9, a second Ctrl-C), so that no private daemon outlives its command.
  const pid_t client = ::getpid();
  auto setup = [client](auto&) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != client) ::_exit(1);  // the client died before prctl took effect
  };
  std::error_code ec;
  daemon->process_->child =
      bp::child(*binary, bp::args(args), bp::std_in<bp::null, bp::std_out> bp::null,
                bp::std_err > daemon->process_->stderr_path, bp::extend::on_exec_setup = setup, ec);
  if (ec) return absl::UnavailableError("cannot start " + *binary + ": " + ec.message());

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.start_timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!daemon->process_->child.running())
      return absl::UnavailableError("the private torchscand exited during start-up: " +
                                    Tail(daemon->process_->stderr_path));
    if (DaemonClient::Connect(daemon->address_, {}, 0.2).ok()) return daemon;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // no socket yet fails at once
  }
  return absl::UnavailableError("the private torchscand did not answer within " +
                                std::to_string(options.start_timeout_s) + " s: " + Tail(daemon->process_->stderr_path));
}

int EmbeddedDaemon::pid() const { return process_->child.id(); }

EmbeddedDaemon::~EmbeddedDaemon() {
  if (process_ && process_->child.valid() && process_->child.running()) {
    ::kill(process_->child.id(), SIGTERM);
    // Polled: boost's wait_for waits on SIGCHLD, which another thread (gRPC's) may take.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (process_->child.running() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::error_code ec;
    if (process_->child.running(ec)) process_->child.terminate(ec);
  }
  std::error_code ec;
  if (!directory_.empty()) fs::remove_all(directory_, ec);
}

}  // namespace torchscan
