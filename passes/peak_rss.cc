#include "passes/peak_rss.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>
#include <thread>
#include <tuple>
#include <vector>

#include <boost/process.hpp>
#include <boost/process/extend.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "passes/rss_protocol.h"
#include "io/file_io.h"

namespace torchscan::workloads {
namespace {

namespace bp = boost::process;
using Clock = std::chrono::steady_clock;

// The exit status of a child whose parent died before it could arrange to die with it; no
// one is left to read it.
constexpr int kRssChildOrphaned = 125;

// Temporary files of one trial, removed when the trial ends.
class TempFiles {
 public:
  ~TempFiles() {
    for (const std::string& path : paths_) {
      std::error_code ignored;
      std::filesystem::remove(path, ignored);
    }
  }
  // Creates an empty file; "" when it cannot.
  std::string Make(const std::string& contents) {
    std::error_code error;
    std::filesystem::path dir = std::filesystem::temp_directory_path(error);
    if (error) dir = "/tmp";
    std::string pattern = (dir / "torchscan_rss_XXXXXX").string();
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = ::mkstemp(name.data());
    if (fd < 0) return "";
    paths_.emplace_back(name.data());
    bool ok = true;
    for (size_t done = 0; done < contents.size() && ok;) {
      const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
      ok = n > 0;
      if (ok) done += static_cast<size_t>(n);
    }
    ::close(fd);
    return ok ? paths_.back() : "";
  }

 private:
  std::vector<std::string> paths_;
};

std::string Tail(const std::string& text, size_t max_chars = 2000) {
  std::string tail = text.size() > max_chars ? "..." + text.substr(text.size() - max_chars) : text;
  return std::string(absl::StripAsciiWhitespace(tail));
}

std::string Scope(int64_t calls, int64_t intra_op_threads, int64_t inter_op_threads) {
  return absl::StrCat("process start-up + model/input construction + ", calls, " completed calls with ",
                      intra_op_threads, " intra-op and ", inter_op_threads, " inter-op threads; no profiling");
}

// Why `options` cannot run `child_path`; "" when they can. `check_path` false: the child
// runs already (adopted), its path is not ours to check.
std::string CheckOptions(const std::string& child_path, const RssTrialOptions& options, bool check_path = true) {
  if (options.calls < 1) return absl::StrCat("calls is ", options.calls, "; the child must complete at least 1 call");
  if (options.intra_op_threads < 0 || options.inter_op_threads < 0)
    return "thread counts must be >= 0 (0 keeps LibTorch's default)";
  if (!(options.timeout_s > 0))
    return absl::StrCat("timeout_s is ", options.timeout_s, "; give a positive timeout");
  if (check_path && (child_path.empty() || ::access(child_path.c_str(), X_OK) != 0)) {
    return absl::StrCat("RSS child '", child_path, "' is missing or not executable (",
                        child_path.empty() ? "empty path" : std::strerror(errno),
                        "); build //passes:torchscan_rss_child and pass its path");
  }
  return "";
}

// The child's input (the serialized spec) and where its stdout and stderr go.
struct TrialPaths {
  std::string spec;
  std::string out;
  std::string err;
};

// Writes the spec and creates the empty output files in `files`; the reason on failure.
std::string WriteTrialFiles(const torchscan::v1::WorkloadSpec& spec, TempFiles& files, TrialPaths* paths) {
  std::string serialized;
  if (!spec.SerializeToString(&serialized)) return "the WorkloadSpec could not be serialized";
  paths->spec = files.Make(serialized);
  paths->out = files.Make("");
  paths->err = files.Make("");
  if (paths->spec.empty() || paths->out.empty() || paths->err.empty()) {
    return absl::StrCat("could not create temporary files for the RSS child: ", std::strerror(errno));
  }
  return "";
}

// How the child ended: its wait status when it could be read, or why it could not be launched.
struct ChildEnd {
  int status = 0;
  bool status_known = false;
  std::string launch_error;  // non-empty: the child never ran
};

// Starts the child: the fork happens here, on the calling thread. The child dies with that
// thread (kill -9 of the worker, or of torchscand, whose death kills the worker): no RSS child
// runs on after the job it measured for. A parent gone before prctl took effect is seen by
// getppid. Sets *launch_error instead when it cannot start.
// `stdin_fd`: the child's stdin (a waiting child's socket); -1: /dev/null.
std::unique_ptr<bp::child> LaunchChild(const std::string& child_path, const TrialPaths& paths,
                                       const std::vector<std::string>& args, int stdin_fd,
                                       std::string* launch_error) {
  const int null_fd = stdin_fd >= 0 ? -1 : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int in = stdin_fd >= 0 ? stdin_fd : null_fd;
  if (in < 0) {
    *launch_error = absl::StrCat("could not open /dev/null for the RSS child's stdin: ", std::strerror(errno));
    return nullptr;
  }
  std::unique_ptr<bp::child> child;
  try {
    const pid_t parent = ::getpid();
    auto setup = [parent, in](auto&) {
      if (::dup2(in, STDIN_FILENO) < 0) ::_exit(kRssChildOrphaned);
      if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(kRssChildOrphaned);
    };
    child = std::make_unique<bp::child>(bp::exe = child_path, bp::args = args, bp::std_out > paths.out,
                                        bp::std_err > paths.err, bp::extend::on_exec_setup = setup);
  } catch (const std::exception& e) {
    *launch_error = absl::StrCat("could not launch the RSS child '", child_path, "': ", e.what());
  }
  if (null_fd >= 0) ::close(null_fd);
  return child;
}

std::vector<std::string> TrialWords(const std::string& spec_path, const RssTrialOptions& options) {
  return {spec_path, std::to_string(options.calls), std::to_string(options.intra_op_threads),
          std::to_string(options.inter_op_threads)};
}

// Waits for `child`, killing it (SIGKILL) past options.timeout_s since `start` or on cancel;
// sets trial.timed_out / trial.cancelled and trial.wall_s.
ChildEnd AwaitChild(bp::child& child, const RssTrialOptions& options, Clock::time_point start, RssTrialInfo& trial) {
  ChildEnd end;
  std::error_code error;
  auto poll = std::chrono::milliseconds(1);
  while (child.running(error)) {
    if (std::chrono::duration<double>(Clock::now() - start).count() >= options.timeout_s) {
      child.terminate(error);  // SIGKILL, then reaps the child
      trial.timed_out = true;
      break;
    }
    if (options.cancel != nullptr && options.cancel->load()) {
      child.terminate(error);
      trial.cancelled = true;
      break;
    }
    std::this_thread::sleep_for(poll);
    poll = std::min(poll * 2, std::chrono::milliseconds(20));
  }
  if (!trial.timed_out && !trial.cancelled && !error) {
    end.status = child.native_exit_code();
    end.status_known = WIFEXITED(end.status) || WIFSIGNALED(end.status);
  }
  trial.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return end;
}

// Why the child gave no result (timeout, cancel, signal, non-zero exit, unreadable status); "" when it
// exited with 0. Sets trial.signal or trial.exit_code.
std::string DescribeEnd(const ChildEnd& end, double timeout_s, RssTrialInfo& trial) {
  const std::string with_stderr = trial.stderr_tail.empty() ? "" : absl::StrCat("; its stderr: ", trial.stderr_tail);
  if (trial.timed_out) {
    trial.signal = SIGKILL;
    return absl::StrFormat("RSS child timed out after %g s and was killed (SIGKILL)%s", timeout_s, with_stderr);
  }
  if (trial.cancelled) {
    trial.signal = SIGKILL;
    return "RSS child was cancelled (killed, SIGKILL): the job ended before the child finished";
  }
  if (!end.status_known) return absl::StrCat("the RSS child's exit status could not be read", with_stderr);
  if (WIFSIGNALED(end.status)) {
    trial.signal = WTERMSIG(end.status);
    return absl::StrCat("RSS child was killed by signal ", trial.signal, " (", strsignal(trial.signal), ")",
                        with_stderr);
  }
  trial.exit_code = WEXITSTATUS(end.status);
  if (trial.exit_code != 0) return absl::StrCat("RSS child exited with status ", trial.exit_code, with_stderr);
  return "";
}

// Why the child's stdout `out` holds no valid result line.
std::string NoResultLine(const std::string& out) {
  return absl::StrCat("RSS child printed no valid '", FormatRssChildLine({0, 0}).substr(0, 20),
                      "vm_hwm_bytes=N calls=N intra_op_threads=N inter_op_threads=N' line; its stdout: ",
                      out.empty() ? "(empty)" : Tail(out, 500));
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

// Everything in file `fd` from its start (an adopted child's stderr); "" when unreadable.
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

// What is queued on socket `fd` up to end of file, without blocking: an adopted child that
// has exited wrote all it will.
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

// The pid line an adopted child's socket starts with (worker_protocol.h: written before this
// process's exec, so it is there at once); 0 when it is missing, malformed or says 0.
pid_t ReadPidLine(int fd) {
  std::string line;
  char c = 0;
  while (line.size() < 32) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) return 0;
    const ssize_t n = ::recv(fd, &c, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    if (c == '\n') break;
    line.push_back(c);
  }
  int pid = 0;
  return absl::SimpleAtoi(line, &pid) && pid > 0 ? static_cast<pid_t>(pid) : 0;
}

}  // namespace

struct RssTrial::State {
  ~State() {
    if (trial_fd >= 0) ::close(trial_fd);
    if (err_fd >= 0) ::close(err_fd);
  }
  // The child's stdout and stderr, read once it has ended: from the files, or an adopted
  // child's socket and stderr file.
  std::string Out() const { return adopted ? ReadQueued(trial_fd) : ReadFile(paths.out).value_or(""); }
  std::string Err() const { return adopted ? ReadWhole(err_fd) : ReadFile(paths.err).value_or(""); }

  std::string child_path;
  // A waiting child's stdin (our end of a socket pair), until Start; an adopted child's until
  // the trial ends (its stdout too).
  int trial_fd = -1;
  bool adopted = false;     // AdoptWaiting: not forked here; err_fd is its stderr
  int err_fd = -1;
  bool started = true;      // false for a waiting child until Start
  bool not_given = false;   // a waiting child that had ended before Start could hand it its trial
  RssTrialOptions options;
  std::string early_error;  // why there is no child: bad options, files, launch
  TempFiles files;
  TrialPaths paths;
  std::unique_ptr<bp::child> child;
  Clock::time_point start;
  bool awaited = false;
};

RssTrial::RssTrial() = default;
RssTrial::~RssTrial() {
  if (state_ && state_->child && !state_->awaited) {
    std::error_code ignored;
    state_->child->terminate(ignored);  // SIGKILL and reap: no child outlives its trial
  }
}
RssTrial::RssTrial(RssTrial&&) noexcept = default;
RssTrial& RssTrial::operator=(RssTrial&&) noexcept = default;

RssTrial RssTrial::Begin(const std::string& child_path, const RssTrialOptions& options, bool started) {
  RssTrial trial;
  trial.state_ = std::make_unique<State>();
  State& s = *trial.state_;
  s.child_path = child_path;
  s.options = options;
  s.started = started;
  s.start = Clock::now();
  s.early_error = CheckOptions(child_path, options);
  return trial;
}

RssTrial RssTrial::Launch(const torchscan::v1::WorkloadSpec& spec, const std::string& child_path,
                          const RssTrialOptions& options) {
  RssTrial trial = Begin(child_path, options, /*started=*/true);
  State& s = *trial.state_;
  if (s.early_error.empty()) s.early_error = WriteTrialFiles(spec, s.files, &s.paths);
  if (s.early_error.empty())
    s.child = LaunchChild(child_path, s.paths, TrialWords(s.paths.spec, options), -1, &s.early_error);
  return trial;
}

RssTrial RssTrial::LaunchWaiting(const std::string& child_path) {
  RssTrial trial = Begin(child_path, RssTrialOptions(), /*started=*/false);
  State& s = *trial.state_;
  if (s.early_error.empty()) {
    s.paths.out = s.files.Make("");
    s.paths.err = s.files.Make("");
    if (s.paths.out.empty() || s.paths.err.empty())
      s.early_error = absl::StrCat("could not create temporary files for the RSS child: ", std::strerror(errno));
  }
  int pair[2] = {-1, -1};
  if (s.early_error.empty() && ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    s.early_error = absl::StrCat("could not make the waiting RSS child's stdin: ", std::strerror(errno));
  if (s.early_error.empty()) {
    s.child = LaunchChild(child_path, s.paths, {"--wait"}, pair[1], &s.early_error);
    ::close(pair[1]);
    s.trial_fd = pair[0];
  }
  return trial;
}

RssTrial RssTrial::AdoptWaiting(int socket_fd, int stderr_fd) {
  RssTrial trial = Begin("", RssTrialOptions(), /*started=*/false);
  State& s = *trial.state_;
  s.early_error.clear();  // no path: the child runs already
  s.adopted = true;
  s.trial_fd = socket_fd;
  s.err_fd = stderr_fd;
  for (int fd : {socket_fd, stderr_fd}) ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // no later child inherits them
  pid_t pid = ReadPidLine(socket_fd);
  if (pid > 0) {
    s.child = std::make_unique<bp::child>(pid);
  } else {
    s.early_error = absl::StrCat("the RSS child started with this worker could not be forked; its stderr: ",
                                 Tail(ReadWhole(stderr_fd)));
  }
  return trial;
}

bool RssTrial::waiting() const { return state_ && !state_->started; }

void RssTrial::Start(const torchscan::v1::WorkloadSpec& spec, const RssTrialOptions& options) {
  if (!state_ || state_->started) return;
  State& s = *state_;
  s.started = true;
  s.options = options;
  s.start = Clock::now();
  if (!s.early_error.empty()) return;
  s.early_error = CheckOptions(s.child_path, options, /*check_path=*/!s.adopted);
  std::string serialized;
  if (s.early_error.empty() && !spec.SerializeToString(&serialized))
    s.early_error = "the WorkloadSpec could not be serialized";
  if (s.early_error.empty() && (s.paths.spec = s.files.Make(serialized)).empty())
    s.early_error = absl::StrCat("could not create temporary files for the RSS child: ", std::strerror(errno));
  if (s.early_error.empty()) {
    // MSG_NOSIGNAL: a waiting child that already died must not take this process with SIGPIPE.
    const std::string line = absl::StrJoin(TrialWords(s.paths.spec, options), " ") + "\n";
    if (::send(s.trial_fd, line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size())) {
      const int send_error = errno;
      // Its end is closed: it has ended (or is ending), and Await says how; it waits for a
      // process that is gone, not a hang. Any other error kills it, with the send's error.
      if (s.child && (send_error == EPIPE || send_error == ECONNRESET))
        s.not_given = true;
      else
        s.early_error = absl::StrCat("the waiting RSS child could not be given its trial: ", std::strerror(send_error));
    }
  }
  // End of file after the line; an adopted child's result comes back on the same socket.
  if (s.adopted) {
    ::shutdown(s.trial_fd, SHUT_WR);
  } else {
    ::close(s.trial_fd);
    s.trial_fd = -1;
  }
  if (!s.early_error.empty() && s.child) {
    std::error_code ignored;
    s.child->terminate(ignored);
    s.child.reset();
  }
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
  if (!state_ || state_->awaited) return unknown("the RSS trial was already awaited");
  State& s = *state_;
  s.awaited = true;
  if (!s.started) {
    if (s.child) {
      std::error_code ignored;
      s.child->terminate(ignored);  // SIGKILL and reap: it would wait on
    }
    return unknown("the waiting RSS child was never given its trial (RssTrial::Start)");
  }
  if (!s.early_error.empty()) return unknown(s.early_error);
  const ChildEnd end = AwaitChild(*s.child, options, s.start, trial);
  trial.stderr_tail = Tail(s.Err());
  std::string why = DescribeEnd(end, options.timeout_s, trial);
  if (s.not_given)
    return unknown(absl::StrCat("the waiting RSS child ended before it was given its trial: ",
                                why.empty() ? "it exited with status 0" : why));
  if (!why.empty()) return unknown(why);

  const std::string out = s.Out();
  const std::optional<RssChildResult> result = ParseRssChildOutput(out);
  if (!result) return unknown(NoResultLine(out));
  metric.set_scope(Scope(result->calls, result->intra_op_threads, result->inter_op_threads));
  if (std::string why = CheckChildRan(*result, options); !why.empty()) return unknown(why);
  metric.set_value(static_cast<double>(result->vm_hwm_bytes));
  metric.set_complete(true);
  return metric;
}

torchscan::v1::MetricResult MeasurePeakRss(const torchscan::v1::WorkloadSpec& spec, const std::string& child_path,
                                           const RssTrialOptions& options, RssTrialInfo* info) {
  return RssTrial::Launch(spec, child_path, options).Await(info);
}

}  // namespace torchscan::workloads
