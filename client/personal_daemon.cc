#include "client/personal_daemon.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/embedded_daemon.h"
#include "client/exit_codes.h"
#include "io/file_io.h"
#include "worker/state_folder.h"

namespace torchscan {
namespace {

namespace fs = std::filesystem;

constexpr char kPidFile[] = "torchscand.pid";
constexpr char kAddressFile[] = "torchscand.address";  // the address it answers on, for every client
constexpr size_t kMaxSocketPath = 100;                 // sun_path holds 108 bytes

// In the folder, unless that path is too long for a unix socket: then in a 0700 folder of the
// user's own under /tmp.
std::string Socket() {
  const std::string in_folder = PersonalDaemonFolder() + "/" + worker::kStateSocketFile;
  if (in_folder.size() <= kMaxSocketPath) return in_folder;
  return absl::StrCat("/tmp/torchscan-personal-", ::getuid(), "/", worker::kStateSocketFile);
}
std::string Address() { return "unix:" + Socket(); }
std::string LogPath() { return PersonalDaemonFolder() + "/" + worker::kPrivateDaemonLogFile; }
std::string StateDir() { return PersonalDaemonFolder() + "/" + worker::kPrivateDaemonStateFolder; }

// The pid in the pid file when that process is a live torchscand; 0 otherwise.
int LivePid() {
  const absl::StatusOr<std::string> text = ReadFile(PersonalDaemonFolder() + "/" + kPidFile);
  int pid = 0;
  if (!text.ok() || !absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &pid) || pid <= 0) return 0;
  if (::kill(pid, 0) != 0 && errno != EPERM) return 0;
  const absl::StatusOr<std::string> comm = ReadFile(absl::StrCat("/proc/", pid, "/comm"));
  return comm.ok() && absl::StripAsciiWhitespace(*comm) == "torchscand" ? pid : 0;
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "torchscan-client: daemon: %s\n", std::string(status.message()).c_str());
  return ExitCodeFor(status);
}

void Where() {
  std::printf("  address  %s\n  state    %s\n  log      %s\n", Address().c_str(), StateDir().c_str(),
              LogPath().c_str());
}

int Start(const std::string& torchscand) {
  if (const int pid = LivePid(); pid > 0) {
    std::printf("the personal torchscand already runs (pid %d)\n", pid);
    Where();
    return kExitOk;
  }
  absl::StatusOr<std::string> binary = FindDaemonBinary(torchscand);
  if (!binary.ok()) return Fail(binary.status());
  std::error_code ec;
  for (const std::string& folder : {PersonalDaemonFolder(), fs::path(Socket()).parent_path().string()}) {
    fs::create_directories(folder, ec);
    struct stat st {};
    if (ec || ::lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() ||
        ::chmod(folder.c_str(), 0700) != 0)
      return Fail(absl::UnavailableError("cannot make the folder " + folder +
                                         " of your own (set XDG_STATE_HOME to a folder you can write)"));
  }
  fs::remove(Socket(), ec);  // left by a daemon that did not stop (a reboot, kill -9)
  DaemonLaunch launch;
  launch.binary = *binary;
  launch.address = Address();
  launch.log_path = LogPath();
  launch.resident = true;
  launch.args = {"--state-dir", StateDir(), "--listen", Address()};
  for (std::string& a : OwnDaemonArgs()) launch.args.push_back(std::move(a));
  launch.args.insert(launch.args.end(), {"--sandbox", "off"});
  absl::StatusOr<int> pid = LaunchDaemon(launch);
  if (!pid.ok()) return Fail(pid.status());
  for (const auto& [file, text] :
       {std::pair{kAddressFile, Address() + "\n"}, std::pair{kPidFile, absl::StrCat(*pid, "\n")}})
    if (absl::Status s = WriteFileAtomic(PersonalDaemonFolder() + "/" + file, text, 0600); !s.ok()) return Fail(s);
  std::printf(
      "the personal torchscand runs (pid %d); measure, compare, jobs and history use it when no --daemon "
      "or TORCHSCAN_DAEMON is given, until `torchscan-client daemon stop`\n",
      *pid);
  Where();
  return kExitOk;
}

int Stop() {
  const int pid = LivePid();
  if (pid == 0) {
    std::printf("no personal torchscand runs\n");
    return kExitOk;
  }
  ::kill(pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (LivePid() == pid && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (LivePid() == pid) {
    ::kill(pid, SIGKILL);
    std::printf("the personal torchscand (pid %d) did not stop within 15 s of SIGTERM: killed\n", pid);
  } else {
    std::printf("the personal torchscand (pid %d) stopped; its jobs and history stay in %s\n", pid, StateDir().c_str());
  }
  std::error_code ec;
  for (const char* file : {kPidFile, kAddressFile}) fs::remove(PersonalDaemonFolder() + "/" + file, ec);
  return kExitOk;
}

int Status() {
  const int pid = LivePid();
  if (pid == 0) {
    std::printf("no personal torchscand runs; start one with `torchscan-client daemon start`\n");
    return kExitUnreachable;
  }
  std::printf("the personal torchscand runs (pid %d)\n", pid);
  Where();
  return kExitOk;
}

}  // namespace

std::string PersonalDaemonFolder() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && *state == '/')
    return std::string(state) + "/torchscan";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home != '\0' ? home : "/tmp") + "/.local/state/torchscan";
}

std::optional<std::string> RunningPersonalDaemon() {
  if (LivePid() == 0) return std::nullopt;
  const absl::StatusOr<std::string> address = ReadFile(PersonalDaemonFolder() + "/" + kAddressFile);
  if (!address.ok()) return std::nullopt;
  const std::string text(absl::StripAsciiWhitespace(*address));
  std::error_code ec;
  if (text.rfind("unix:", 0) != 0 || !fs::is_socket(text.substr(5), ec)) return std::nullopt;
  return text;
}

int DaemonCommand(const std::string& torchscand, const std::string& action) {
  if (action == "start") return Start(torchscand);
  if (action == "stop") return Stop();
  if (action == "status") return Status();
  return Fail(absl::InvalidArgumentError("daemon: \"" + action + "\" is not one of start, stop, status"));
}

}  // namespace torchscan
