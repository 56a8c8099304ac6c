#include "process/memory_cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "io/file_io.h"

namespace torchscan::process {
namespace {

std::atomic<int> next_worker{1};

// A cgroup or /proc file's text; "" when it cannot be read.
std::string ReadText(const std::string& path) { return ReadFile(path).value_or(""); }

absl::Status WriteText(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  const bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int error = errno;
  if (fd >= 0) ::close(fd);
  if (ok) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat("cannot write \"", text, "\" to ", path, ": ", std::strerror(error)));
}

bool HasWord(absl::string_view list, absl::string_view word, char separator) {
  for (absl::string_view w : absl::StrSplit(list, separator, absl::SkipWhitespace()))
    if (absl::StripAsciiWhitespace(w) == word) return true;
  return false;
}

// The folder of this process's cgroup in a hierarchy mounted at `mount` (whose root in the
// hierarchy is `root`), from its path `path` in /proc/self/cgroup.
std::string Folder(const std::string& mount, const std::string& root, const std::string& path) {
  absl::string_view rest = path;
  if (root != "/" && absl::ConsumePrefix(&rest, root) && (rest.empty() || rest[0] == '/'))
    return mount + std::string(rest);
  return path == "/" ? mount : mount + path;
}

struct Mount {
  std::string point, root;
};

// The v2 and v1-memory mounts of `mountinfo`.
void FindMounts(const std::string& mountinfo, Mount* v2, Mount* v1) {
  for (absl::string_view line : absl::StrSplit(mountinfo, '\n', absl::SkipEmpty())) {
    const std::vector<absl::string_view> halves = absl::StrSplit(line, " - ");
    if (halves.size() != 2) continue;
    const std::vector<absl::string_view> left = absl::StrSplit(halves[0], ' ');
    const std::vector<absl::string_view> right = absl::StrSplit(halves[1], ' ');
    if (left.size() < 5 || right.size() < 3) continue;
    if (right[0] == "cgroup2" && v2->point.empty()) *v2 = {std::string(left[4]), std::string(left[3])};
    if (right[0] == "cgroup" && HasWord(right[2], "memory", ',') && v1->point.empty())
      *v1 = {std::string(left[4]), std::string(left[3])};
  }
}

// A v2 cgroup whose children may use the memory controller: `own` itself when it holds no
// process of its own or is the hierarchy's root, else after this process moved into a leaf.
absl::StatusOr<std::string> PrepareV2(std::string own) {
  // Moved into its leaf already (a second Open in this process): the place is the leaf's parent.
  const std::string self = absl::StrCat("/torchscand-", ::getpid());
  if (absl::EndsWith(own, self)) own.resize(own.size() - self.size());
  if (HasWord(ReadText(own + "/cgroup.subtree_control"), "memory", ' ')) return own;
  const std::string leaf = own + self;
  if (::mkdir(leaf.c_str(), 0755) != 0 && errno != EEXIST)
    return absl::PermissionDeniedError(absl::StrCat("cannot make ", leaf, ": ", std::strerror(errno)));
  if (absl::Status s = WriteText(leaf + "/cgroup.procs", std::to_string(::getpid())); !s.ok()) {
    ::rmdir(leaf.c_str());
    return s;
  }
  if (absl::Status s = WriteText(own + "/cgroup.subtree_control", "+memory"); !s.ok())
    return absl::FailedPreconditionError(absl::StrCat(s.message(), " (does cgroup ", own, " hold other processes?)"));
  return own;
}

// Removes the worker cgroups (and v2 leaves) that daemons no longer running left in `parent`
// (a daemon killed with kill -9 removes none of its own): "torchscand-<pid>[-<n>]" whose pid is
// gone. One still holding a process is not empty, and rmdir leaves it.
void RemoveStale(const std::string& parent) {
  DIR* dir = ::opendir(parent.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(dir)) {
    absl::string_view name = e->d_name;
    if (!absl::ConsumePrefix(&name, "torchscand-")) continue;
    int pid = 0;
    if (!absl::SimpleAtoi(name.substr(0, name.find('-')), &pid) || pid <= 0) continue;
    if (::kill(pid, 0) != 0 && errno == ESRCH) stale.push_back(parent + "/" + e->d_name);
  }
  ::closedir(dir);
  for (const std::string& path : stale) ::rmdir(path.c_str());
}

}  // namespace

absl::StatusOr<std::shared_ptr<const MemoryCgroups>> MemoryCgroups::Open(const std::string& mount_table,
                                                                         const std::string& own_cgroups) {
  Mount v2, v1;
  FindMounts(ReadText(mount_table), &v2, &v1);
  std::string v2_path, v1_path;
  for (absl::string_view line : absl::StrSplit(ReadText(own_cgroups), '\n', absl::SkipEmpty())) {
    const std::vector<absl::string_view> f = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (f.size() != 3) continue;
    if (f[0] == "0" && f[1].empty()) v2_path = std::string(f[2]);
    if (HasWord(f[1], "memory", ',')) v1_path = std::string(f[2]);
  }
  std::shared_ptr<MemoryCgroups> found;
  std::string why;
  if (!v2.point.empty() && !v2_path.empty()) {
    const std::string own = Folder(v2.point, v2.root, v2_path);
    if (HasWord(ReadText(own + "/cgroup.controllers"), "memory", ' ')) {
      absl::StatusOr<std::string> parent = PrepareV2(own);
      if (!parent.ok()) return parent.status();
      found.reset(new MemoryCgroups(2, *parent));
    } else {
      why = absl::StrCat("cgroup v2 ", own, " has no memory controller");
    }
  }
  if (!found && !v1.point.empty() && !v1_path.empty())
    found.reset(new MemoryCgroups(1, Folder(v1.point, v1.root, v1_path)));
  if (found) RemoveStale(found->parent_);
  if (!found)
    return absl::NotFoundError(
        absl::StrCat(why.empty() ? "no cgroup v2 hierarchy" : why, ", and no cgroup v1 memory hierarchy"));
  // Tried once now: a cgroup this process cannot make says so at its start, not at each job.
  absl::StatusOr<std::unique_ptr<WorkerCgroup>> probe = found->Make(int64_t{1} << 30);
  if (!probe.ok()) return probe.status();
  return std::shared_ptr<const MemoryCgroups>(std::move(found));
}

absl::StatusOr<std::unique_ptr<WorkerCgroup>> MemoryCgroups::Make(int64_t limit_bytes) const {
  const std::string path = absl::StrCat(parent_, "/torchscand-", ::getpid(), "-", next_worker++);
  if (::mkdir(path.c_str(), 0755) != 0)
    return absl::PermissionDeniedError(absl::StrCat("cannot make ", path, ": ", std::strerror(errno)));
  std::unique_ptr<WorkerCgroup> cgroup(new WorkerCgroup(version_, path, -1));
  const std::string limit = std::to_string(limit_bytes);
  if (absl::Status s = WriteText(path + (version_ == 2 ? "/memory.max" : "/memory.limit_in_bytes"), limit); !s.ok())
    return s;
  if (version_ == 2) (void)WriteText(path + "/memory.swap.max", "0");  // absent without swap accounting
  cgroup->procs_fd_ = ::open((path + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (cgroup->procs_fd_ < 0)
    return absl::PermissionDeniedError(absl::StrCat("cannot open ", path, "/cgroup.procs: ", std::strerror(errno)));
  return cgroup;
}

WorkerCgroup::~WorkerCgroup() {
  if (procs_fd_ >= 0) ::close(procs_fd_);
  // Its last processes may still be leaving (a PID namespace's init reaps the rest as it ends).
  for (int i = 0; i < 100 && ::rmdir(path_.c_str()) != 0 && errno == EBUSY; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

int64_t WorkerCgroup::oom_kills() const {
  const std::string text = ReadText(path_ + (version_ == 2 ? "/memory.events" : "/memory.oom_control"));
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    int64_t n = 0;
    if (absl::ConsumePrefix(&line, "oom_kill ") && absl::SimpleAtoi(line, &n)) return n;
  }
  return 0;
}

int64_t WorkerCgroup::peak_bytes() const {
  int64_t n = -1;
  const std::string text = ReadText(path_ + (version_ == 2 ? "/memory.peak" : "/memory.max_usage_in_bytes"));
  return absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &n) ? n : -1;
}

}  // namespace torchscan::process
