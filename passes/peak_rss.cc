#include "passes/peak_rss.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "passes/rss_protocol.h"
#include "passes/text_tail.h"
#include "process/channel.h"
#include "process/exit_status.h"
#include "process/fd.h"
#include "process/pid_line.h"
#include "process/spawn.h"
#include "process/supervise.h"

namespace torchscan::passes {
namespace {

// The exit status of a child whose parent died before it could arrange to die with it (or
// whose set-up failed otherwise); no one is left to read it.
constexpr int kRssChildOrphaned = 125;
// How long an adopted child's pid line may take: it was written before this process's exec.
constexpr int kPidLineTimeoutMs = 5000;

// The trial's spec file, removed when the trial ends.
class TempFile {
 public:
  ~TempFile() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove(path_, ignored);
  }
  // Creates the file holding `contents`; false when it cannot.
  bool Make(const std::string& contents) {
    std::error_code error;
    std::filesystem::path dir = std::filesystem::temp_directory_path(error);
    if (error) dir = "/tmp";
    std::string pattern = (dir / "torchscan_rss_XXXXXX").string();
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const process::Fd fd(::mkstemp(name.data()));
    if (!fd.valid()) return false;
    path_ = name.data();
    for (size_t done = 0; done < contents.size();) {
      const ssize_t n = ::write(fd.get(), contents.data() + done, contents.size() - done);
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string Scope(int64_t calls, int64_t intra_op_threads, int64_t inter_op_threads) {
  return absl::StrCat("process start-up + model/input construction + ", calls, " completed calls with ",
                      intra_op_threads, " intra-op and ", inter_op_threads, " inter-op threads; no profiling");
}

std::string NoTempFiles() {
  return absl::StrCat("could not create temporary files for the RSS child: ", std::strerror(errno));
}

// Why `options` cannot run `child_path`; "" when they can. An empty `child_path` is not
// checked: an adopted child runs already, its path is not ours to check.
std::string CheckOptions(const std::string& child_path, const RssTrialOptions& options, bool check_path) {
  if (options.calls < 1) return absl::StrCat("calls is ", options.calls, "; the child must complete at least 1 call");
  if (options.intra_op_threads < 0 || options.inter_op_threads < 0)
    return "thread counts must be >= 0 (0 keeps LibTorch's default)";
  if (!(options.timeout_s > 0)) return absl::StrCat("timeout_s is ", options.timeout_s, "; give a positive timeout");
  if (check_path && (child_path.empty() || ::access(child_path.c_str(), X_OK) != 0)) {
    return absl::StrCat("RSS child '", child_path, "' is missing or not executable (",
                        child_path.empty() ? "empty path" : std::strerror(errno),
                        "); build //passes:torchscan_rss_child and pass its path");
  }
  return "";
}

// Writes the serialized spec into `file`; the reason on failure.
std::string WriteSpec(const torchscan::v1::WorkloadSpec& spec, TempFile* file) {
  std::string serialized;
  if (!spec.SerializeToString(&serialized)) return "the WorkloadSpec could not be serialized";
  return file->Make(serialized) ? "" : NoTempFiles();
}

std::vector<std::string> TrialWords(const std::string& spec_path, const RssTrialOptions& options) {
  return {spec_path, std::to_string(options.calls), std::to_string(options.intra_op_threads),
          std::to_string(options.inter_op_threads)};
}

// Starts the child on the calling thread with stdin, stdout and stderr given. It dies with
// that thread (kill -9 of the worker, or of torchscand, whose death kills the worker): no RSS
// child runs on after the job it measured for. Its pid; 0 with `launch_error` set when it
// could not start.
int LaunchChild(const std::string& child_path, const std::vector<std::string>& args, int in, int out, int err,
                std::string* launch_error) {
  process::SpawnOptions spawn;
  spawn.path = child_path;
  spawn.args = args;
  spawn.setup.stdin_fd = in;
  spawn.setup.stdout_fd = out;
  spawn.setup.stderr_fd = err;
  spawn.setup.failed_exit_code = kRssChildOrphaned;
  process::Spawned spawned;
  process::SpawnError error;
  if (process::Spawn(spawn, &spawned, &error)) return spawned.pid;
  // As Boost.Process worded it before: "execve failed: No such file or directory".
  const std::string why = error.exec ? absl::StrCat(error.call, ": ", error.text) : error.text;
  *launch_error = absl::StrCat("could not launch the RSS child '", child_path, "': ", why);
  return 0;
}

// Why the child gave no result (timeout, cancel, signal, non-zero exit, unreadable status); "" when it
// exited with 0. Sets trial.signal or trial.exit_code.
std::string DescribeEnd(const std::optional<int>& status, double timeout_s, RssTrialInfo& trial) {
  const std::string with_stderr = trial.stderr_tail.empty() ? "" : absl::StrCat("; its stderr: ", trial.stderr_tail);
  if (trial.timed_out) {
    trial.signal = SIGKILL;
    return absl::StrFormat("RSS child timed out after %g s and was killed (SIGKILL)%s", timeout_s, with_stderr);
  }
  if (trial.cancelled) {
    trial.signal = SIGKILL;
    return "RSS child was cancelled (killed, SIGKILL): the job ended before the child finished";
  }
  const process::ExitStatus end = process::DecodeWaitStatus(status.value_or(-1));
  if (end.kind == process::ExitStatus::Kind::kUnreadable)
    return absl::StrCat("the RSS child's exit status could not be read", with_stderr);
  if (end.kind == process::ExitStatus::Kind::kSignaled) {
    trial.signal = end.signal;
    return absl::StrCat("RSS child was killed by signal ", trial.signal, " (", strsignal(trial.signal), ")",
                        with_stderr);
  }
  trial.exit_code = end.code;
  if (trial.exit_code != 0) return absl::StrCat("RSS child exited with status ", trial.exit_code, with_stderr);
  return "";
}

// Why the child's stdout `out` holds no valid result line.
std::string NoResultLine(const std::string& out) {
  return absl::StrCat("RSS child printed no valid '", FormatRssChildLine({0, 0}).substr(0, 20),
                      "vm_hwm_bytes=N calls=N intra_op_threads=N inter_op_threads=N' line; its stdout: ",
                      out.empty() ? "(empty)" : TextTail(out, 500));
}

// Why the child did not run what `options` asked (other calls, other thread counts when not 0); "" when it did.
std::string CheckChildRan(const RssChildResult& result, const RssTrialOptions& options) {
  if (result.calls != options.calls) {
    return absl::StrCat("RSS child reported ", result.calls, " completed calls, expected ", options.calls);
  }
  for (const auto& [what, asked, ran] : {std::tuple{"intra-op", options.intra_op_threads, result.intra_op_threads},
                                         std::tuple{"inter-op", options.inter_op_threads, result.inter_op_threads}}) {
    if (asked > 0 && ran != asked)
      return absl::StrCat("RSS child ran with ", ran, " ", what, " threads, asked for ", asked);
  }
  return "";
}

// Everything in file `fd` from its start (an anonymous file's); "" when unreadable.
std::string ReadWhole(int fd) {
  std::string text;
  char chunk[4096];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, chunk, sizeof(chunk), at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text.append(chunk, static_cast<size_t>(n));
    at += n;
  }
}

// What is queued on socket `fd` up to end of file, without blocking: a child that has exited
// wrote all it will.
std::string ReadQueued(int fd) {
  std::string text;
  char chunk[4096];
  while (true) {
    const ssize_t n = ::recv(fd, chunk, sizeof(chunk), MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace

// One child and where its output goes. A waiting child (LaunchWaiting, AdoptWaiting) reads
// its trial from `socket` and writes its result there; a launched one (Launch) writes it to
// `out`. Either writes its stderr to `err`.
struct RssTrial::State {
  enum class Stage { kWaiting, kStarted, kAwaited };

  ~State() {
    if (pid > 0) process::KillAndReap(pid, process::End::kKilled, /*own_group=*/false);
  }
  std::string Out() const { return out.valid() ? ReadWhole(out.get()) : ReadQueued(socket.get()); }
  // Kills and reaps the child (SIGKILL), if any: no child outlives its trial.
  void Kill() {
    if (pid > 0) process::KillAndReap(pid, process::End::kKilled, /*own_group=*/false);
    pid = 0;
  }

  Stage stage = Stage::kStarted;
  std::string child_path;  // "" for an adopted child
  RssTrialOptions options;
  process::Clock::time_point start;
  std::string early_error;  // why there is no child: bad options, files, launch
  std::string not_given;    // a waiting child had ended before Start could hand it its trial
  int pid = 0;              // the child, until it is reaped
  process::Fd socket;       // a waiting child's stdin and stdout
  process::Fd out;          // a launched child's stdout
  process::Fd err;          // the child's stderr
  TempFile spec;
};

RssTrial::RssTrial() = default;
RssTrial::~RssTrial() = default;
RssTrial::RssTrial(RssTrial&&) noexcept = default;
RssTrial& RssTrial::operator=(RssTrial&&) noexcept = default;

RssTrial RssTrial::Begin(const std::string& child_path, const RssTrialOptions& options, bool waiting) {
  RssTrial trial;
  trial.state_ = std::make_unique<State>();
  State& s = *trial.state_;
  s.child_path = child_path;
  s.options = options;
  s.stage = waiting ? State::Stage::kWaiting : State::Stage::kStarted;
  s.start = process::Clock::now();
  s.early_error = CheckOptions(child_path, options, /*check_path=*/true);
  return trial;
}

RssTrial RssTrial::Launch(const torchscan::v1::WorkloadSpec& spec, const std::string& child_path,
                          const RssTrialOptions& options) {
  RssTrial trial = Begin(child_path, options, /*waiting=*/false);
  State& s = *trial.state_;
  if (s.early_error.empty()) s.early_error = WriteSpec(spec, &s.spec);
  if (s.early_error.empty()) {
    s.out.Reset(::memfd_create("torchscan_rss_child stdout", MFD_CLOEXEC));
    s.err.Reset(::memfd_create("torchscan_rss_child stderr", MFD_CLOEXEC));
    if (!s.out.valid() || !s.err.valid()) s.early_error = NoTempFiles();
  }
  process::Fd null_fd;
  if (s.early_error.empty() && !(null_fd = process::Fd(::open("/dev/null", O_RDONLY | O_CLOEXEC))).valid())
    s.early_error = absl::StrCat("could not open /dev/null for the RSS child's stdin: ", std::strerror(errno));
  if (s.early_error.empty())
    s.pid = LaunchChild(child_path, TrialWords(s.spec.path(), options), null_fd.get(), s.out.get(), s.err.get(),
                        &s.early_error);
  return trial;
}

RssTrial RssTrial::LaunchWaiting(const std::string& child_path) {
  RssTrial trial = Begin(child_path, RssTrialOptions(), /*waiting=*/true);
  State& s = *trial.state_;
  process::Fd theirs;
  if (s.early_error.empty() && !process::OpenChannel("torchscan_rss_child stderr", &s.socket, &theirs, &s.err))
    s.early_error = absl::StrCat("could not make the waiting RSS child's stdin: ", std::strerror(errno));
  if (s.early_error.empty())
    s.pid = LaunchChild(child_path, {kRssChildWaitFlag}, theirs.get(), theirs.get(), s.err.get(), &s.early_error);
  return trial;
}

RssTrial RssTrial::AdoptWaiting(int socket_fd, int stderr_fd) {
  RssTrial trial = Begin("", RssTrialOptions(), /*waiting=*/true);
  State& s = *trial.state_;
  s.early_error.clear();  // no path: the child runs already
  s.socket.Reset(socket_fd);
  s.err.Reset(stderr_fd);
  for (int fd : {socket_fd, stderr_fd}) ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // no later child inherits them
  s.pid = process::ReadPidLine(socket_fd, kPidLineTimeoutMs);
  if (s.pid <= 0)
    s.early_error = absl::StrCat("the RSS child started with this worker could not be forked; its stderr: ",
                                 TextTail(ReadWhole(stderr_fd)));
  return trial;
}

bool RssTrial::waiting() const { return state_ && state_->stage == State::Stage::kWaiting; }

void RssTrial::Start(const torchscan::v1::WorkloadSpec& spec, const RssTrialOptions& options) {
  if (!waiting()) return;
  State& s = *state_;
  s.stage = State::Stage::kStarted;
  s.options = options;
  s.start = process::Clock::now();
  if (!s.early_error.empty()) return;
  s.early_error = CheckOptions(s.child_path, options, /*check_path=*/!s.child_path.empty());
  if (s.early_error.empty()) s.early_error = WriteSpec(spec, &s.spec);
  if (s.early_error.empty()) {
    // MSG_NOSIGNAL: a waiting child that already died must not take this process with SIGPIPE.
    const std::string line = absl::StrJoin(TrialWords(s.spec.path(), options), " ") + "\n";
    if (::send(s.socket.get(), line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size())) {
      const int send_error = errno;
      // Its end is closed: it has ended (or is ending), and Await says how; it waits for a
      // process that is gone, not a hang. Any other error kills it, with the send's error.
      if (send_error == EPIPE || send_error == ECONNRESET)
        s.not_given = "the waiting RSS child ended before it was given its trial: ";
      else
        s.early_error = absl::StrCat("the waiting RSS child could not be given its trial: ", std::strerror(send_error));
    }
  }
  ::shutdown(s.socket.get(), SHUT_WR);  // end of file after the line; the result comes back on the socket
  if (!s.early_error.empty()) s.Kill();
}

torchscan::v1::MetricResult RssTrial::Await(RssTrialInfo* info) {
  torchscan::v1::MetricResult metric;
  metric.set_name("peak_rss_bytes");
  metric.set_unit("bytes");
  metric.set_method("VmHWM of a fresh child process");
  const RssTrialOptions options = state_ ? state_->options : RssTrialOptions();
  metric.set_scope(absl::StrCat("process start-up + model/input construction + ", options.calls,
                                " completed calls; no profiling (the child did not report its threads)"));
  RssTrialInfo local;
  RssTrialInfo& trial = info != nullptr ? *info : local;
  trial = RssTrialInfo();
  auto unknown = [&](const std::string& reason) {
    metric.clear_value();
    metric.set_complete(false);
    metric.add_diagnostics(reason);
    return metric;
  };
  if (!state_ || state_->stage == State::Stage::kAwaited) return unknown("the RSS trial was already awaited");
  State& s = *state_;
  const bool was_waiting = s.stage == State::Stage::kWaiting;
  s.stage = State::Stage::kAwaited;
  if (was_waiting) {
    s.Kill();  // it would wait on
    return unknown("the waiting RSS child was never given its trial (RssTrial::Start)");
  }
  if (!s.early_error.empty()) return unknown(s.early_error);
  process::Watch watch;
  watch.start = s.start;
  watch.limit_s = options.timeout_s;
  watch.stop = options.cancel;
  const process::End end = process::WaitForEnd(s.pid, nullptr, watch);
  const std::optional<int> status = process::KillAndReap(s.pid, end, /*own_group=*/false);
  s.pid = 0;
  trial.wall_s = process::SecondsSince(s.start);
  trial.timed_out = end == process::End::kTimedOut;
  trial.cancelled = end == process::End::kKilled;
  trial.stderr_tail = TextTail(ReadWhole(s.err.get()));
  const std::string why = DescribeEnd(status, options.timeout_s, trial);
  if (!s.not_given.empty()) return unknown(absl::StrCat(s.not_given, why.empty() ? "it exited with status 0" : why));
  if (!why.empty()) return unknown(why);

  const std::string out = s.Out();
  const std::optional<RssChildResult> result = ParseRssChildOutput(out);
  if (!result) return unknown(NoResultLine(out));
  metric.set_scope(Scope(result->calls, result->intra_op_threads, result->inter_op_threads));
  if (std::string why_not = CheckChildRan(*result, options); !why_not.empty()) return unknown(why_not);
  metric.set_value(static_cast<double>(result->vm_hwm_bytes));
  metric.set_complete(true);
  return metric;
}

torchscan::v1::MetricResult MeasurePeakRss(const torchscan::v1::WorkloadSpec& spec, const std::string& child_path,
                                           const RssTrialOptions& options, RssTrialInfo* info) {
  return RssTrial::Launch(spec, child_path, options).Await(info);
}

}  // namespace torchscan::passes
