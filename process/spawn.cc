#include "process/spawn.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "process/channel.h"
#include "process/fd.h"

namespace torchscan::process {
namespace {

// The descriptors of every early child, closed here when the spawn ends (the program keeps
// its own copies past its exec).
class EarlyDescriptors {
 public:
  ~EarlyDescriptors() {
    for (const EarlyChildFds& c : fds_)
      for (int fd : {c.main_fd, c.child_fd, c.err_fd})
        if (fd >= 0) ::close(fd);
  }
  // False with `error` set when any cannot be made.
  bool Open(const EarlyChildren& early, SpawnError* error) {
    for (size_t i = 0; i < early.children.size(); ++i) {
      Fd here, there, err;
      const bool opened = OpenChannel(early.name + " stderr", &here, &there, &err);
      const int open_errno = errno;
      fds_.push_back({here.Release(), there.Release(), err.Release()});
      if (!opened) {
        error->text = absl::StrCat("the descriptors of its ", early.name, ": ", std::strerror(open_errno));
        return false;
      }
    }
    return true;
  }
  const std::vector<EarlyChildFds>& fds() const { return fds_; }

 private:
  std::vector<EarlyChildFds> fds_;
};

// Reads `fd` to its end; what was read.
std::string ReadToEnd(int fd) {
  std::string text;
  char chunk[64];
  for (ssize_t n; (n = ::read(fd, chunk, sizeof(chunk))) != 0;) {
    if (n > 0) text.append(chunk, static_cast<size_t>(n));
    else if (errno != EINTR) break;
  }
  return text;
}

// The launcher's environment with `overrides` ("NAME=value") set over it.
std::vector<std::string> EnvironmentWith(const std::vector<std::string>& overrides) {
  std::vector<std::string> entries = overrides;
  auto overridden = [&](const char* entry) {
    for (const std::string& o : overrides)
      if (const size_t eq = o.find('='); std::strncmp(entry, o.c_str(), eq + 1) == 0) return true;
    return false;
  };
  for (char** e = environ; *e != nullptr; ++e)
    if (!overridden(*e)) entries.emplace_back(*e);
  return entries;
}

}  // namespace

bool Spawn(const SpawnOptions& options, Spawned* spawned, SpawnError* error) {
  *error = SpawnError();
  EarlyDescriptors early;
  if (!early.Open(options.early, error)) return false;
  std::vector<std::string> words = options.args;
  for (const EarlyChildFds& c : early.fds()) {
    std::vector<std::string> more = options.early.args_for(c.main_fd, c.err_fd);
    words.insert(words.end(), more.begin(), more.end());
  }
  std::vector<char*> argv{const_cast<char*>(options.path.c_str())};
  for (const std::string& word : words) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  // Made before the fork: the child only points environ at it (no allocation after fork).
  const std::vector<std::string> env_entries = EnvironmentWith(options.environment);
  std::vector<char*> envp;
  for (const std::string& entry : env_entries) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);
  // One byte per early child forked; the errno of a failed exec.
  int started[2] = {-1, -1}, exec_result[2] = {-1, -1};
  if ((!early.fds().empty() && ::pipe2(started, O_CLOEXEC) != 0) || ::pipe2(exec_result, O_CLOEXEC) != 0) {
    error->text = absl::StrCat("pipe: ", std::strerror(errno));
    for (int fd : started)
      if (fd >= 0) ::close(fd);
    return false;
  }
  Fd started_read(started[0]), started_write(started[1]), result_read(exec_result[0]), result_write(exec_result[1]);
  const PreExec pre_exec(options.setup, options.early, early.fds(), started_write.get());
  const pid_t pid = ForkInto(options.setup.sandbox);
  if (pid == 0) {
    if (!options.environment.empty()) environ = envp.data();
    pre_exec.Apply();
    ::execv(argv[0], argv.data());
    const int exec_errno = errno;
    pre_exec.EndEarlyChildren();
    (void)!::write(result_write.get(), &exec_errno, sizeof(exec_errno));
    ::_exit(127);
  }
  const int fork_errno = errno;
  result_write.Reset();
  started_write.Reset();
  if (pid < 0) {
    *error = {true, std::strerror(fork_errno), options.setup.sandbox != nullptr ? "clone() failed" : "fork() failed"};
    return false;
  }
  // End of file once the program runs (close-on-exec) or the child exited.
  const std::string result = ReadToEnd(result_read.get());
  const std::string forked = started_read.valid() ? ReadToEnd(started_read.get()) : "";
  if (result.size() >= sizeof(int)) {
    int exec_errno = 0;
    std::memcpy(&exec_errno, result.data(), sizeof(exec_errno));
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    *error = {true, std::strerror(exec_errno), "execve failed"};
    return false;
  }
  spawned->pid = pid;
  spawned->early_started = static_cast<int>(forked.size());
  return true;
}

}  // namespace torchscan::process
