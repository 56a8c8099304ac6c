#include "process/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace torchscan::process {
namespace {

constexpr int kNamespaces = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS;

absl::Status Invalid(const std::string& path, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("sandbox: ", path, ": ", why));
}

bool Under(const std::string& path, const std::string& dir) {
  return path == dir || dir == "/" || absl::StartsWith(path, dir + "/");
}

std::string Parent(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

// The mount flags a read-only remount must keep (a user namespace may not drop them).
unsigned long LockedFlags(const std::string& path) {
  struct statvfs s;
  if (::statvfs(path.c_str(), &s) != 0) return 0;
  unsigned long flags = 0;
  if (s.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (s.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (s.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (s.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (s.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (s.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return flags;
}

// Builds the step list; one object per Prepare.
class Planner {
 public:
  using Kind = SandboxPlan::Step::Kind;

  // `covered`: folders that will be bound read-only (listed, not links): a read-only path
  // below one of them needs no bind of its own (a link such as /bin -> usr/bin, under /usr).
  Planner(std::string root, std::vector<std::string> covered) : root_(std::move(root)), covered_(std::move(covered)) {}

  // Makes `path` visible at the same place: each symbolic link on the way is copied as a link
  // and followed. The real file or directory at the end is bound (read-only unless `writable`).
  absl::Status Add(const std::string& path, bool writable, int depth = 0) {
    if (depth > 40) return Invalid(path, "too many levels of symbolic links");
    std::string prefix;
    const std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string here = prefix + "/" + parts[i];
      struct stat st;
      if (::lstat(here.c_str(), &st) != 0) return Invalid(path, absl::StrCat("cannot be read: ", std::strerror(errno)));
      if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        const ssize_t n = ::readlink(here.c_str(), target, sizeof target - 1);
        if (n <= 0) return Invalid(here, "cannot read the symbolic link");
        const std::string link(target, static_cast<size_t>(n));
        if (links_.insert(here).second) {
          Mkdirs(Parent(here));
          Push(Kind::kSymlink, link, root_ + here, 0, absl::StrCat("cannot link ", here));
        }
        std::string rest = link[0] == '/' ? link : (prefix.empty() ? "" : prefix) + "/" + link;
        for (size_t j = i + 1; j < parts.size(); ++j) absl::StrAppend(&rest, "/", parts[j]);
        return Add(Normal(rest), writable, depth + 1);
      }
      prefix = here;
    }
    if (prefix.empty()) prefix = "/";
    struct stat st;
    if (::stat(prefix.c_str(), &st) != 0) return Invalid(path, "cannot be read");
    Bind(prefix, S_ISDIR(st.st_mode), writable);
    return absl::OkStatus();
  }

  // Masks `path` when it lies under a visible (bound) path.
  void Hide(const std::string& path) {
    char real[PATH_MAX];
    if (::realpath(path.c_str(), real) == nullptr) return;
    const std::string p = real;
    if (std::none_of(bound_.begin(), bound_.end(), [&](const std::string& b) { return Under(p, b); })) return;
    struct stat st;
    if (::stat(p.c_str(), &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
      Push(Kind::kTmpfs, "mode=0711", root_ + p, 0, absl::StrCat("cannot hide ", p));
    } else {
      Push(Kind::kBind, "/dev/null", root_ + p, 0, absl::StrCat("cannot hide ", p));
    }
  }

  void Device(const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) return;
    Push(Kind::kTouch, "", root_ + path, 0666, absl::StrCat("cannot make ", path));
    Push(Kind::kBind, path, root_ + path, 0, absl::StrCat("cannot bind ", path));
  }

  void Mkdirs(const std::string& dir) {
    if (dir == "/" || made_.count(dir) != 0) return;
    Mkdirs(Parent(dir));
    made_.insert(dir);
    Push(Kind::kMkdir, "", root_ + dir, 0755, absl::StrCat("cannot make ", dir));
  }

  void Push(Kind kind, std::string a, std::string b, int mode, const std::string& what, unsigned long flags = 0) {
    steps_.push_back(
        {kind, std::move(a), std::move(b), mode, flags, absl::StrCat("torchscan launcher: sandbox: ", what)});
  }

  std::vector<SandboxPlan::Step> Take() { return std::move(steps_); }

 private:
  static std::string Normal(const std::string& path) {
    std::vector<std::string> out;
    for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
      if (part == ".") continue;
      if (part == "..") {
        if (!out.empty()) out.pop_back();
        continue;
      }
      out.emplace_back(part);
    }
    std::string joined;
    for (const std::string& part : out) absl::StrAppend(&joined, "/", part);
    return joined.empty() ? "/" : joined;
  }

  void Bind(const std::string& path, bool is_dir, bool writable) {
    if (!writable && std::any_of(covered_.begin(), covered_.end(),
                                 [&](const std::string& c) { return path != c && Under(path, c); }))
      return;
    if (!bound_.insert(path).second) return;
    Mkdirs(Parent(path));
    if (is_dir) {
      made_.insert(path);
      Push(Kind::kMkdir, "", root_ + path, 0755, absl::StrCat("cannot make ", path));
    } else {
      Push(Kind::kTouch, "", root_ + path, 0644, absl::StrCat("cannot make ", path));
    }
    Push(Kind::kBind, path, root_ + path, 0, absl::StrCat("cannot bind ", path));
    if (!writable) {
      Push(Kind::kReadOnly, "", root_ + path, 0, absl::StrCat("cannot make ", path, " read-only"), LockedFlags(path));
    }
  }

  const std::string root_;
  const std::vector<std::string> covered_;
  std::vector<SandboxPlan::Step> steps_;
  std::set<std::string> made_, links_, bound_;
};

}  // namespace

std::vector<std::string> DefaultSandboxDevices() {
  std::vector<std::string> devices = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
  glob_t found{};
  if (::glob("/dev/nvidia*", 0, nullptr, &found) == 0)
    for (size_t i = 0; i < found.gl_pathc; ++i) devices.emplace_back(found.gl_pathv[i]);
  ::globfree(&found);
  return devices;
}

absl::StatusOr<SandboxPlan> SandboxPlan::Prepare(const SandboxSpec& spec) {
  if (spec.root.empty() || spec.root[0] != '/') return Invalid(spec.root, "the root must be an absolute path");
  DIR* dir = ::opendir(spec.root.c_str());
  if (dir == nullptr) return Invalid(spec.root, "the root must be an existing directory");
  int entries = 0;
  while (const dirent* e = ::readdir(dir))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) ++entries;
  ::closedir(dir);
  if (entries != 0) return Invalid(spec.root, "the root must be empty");
  for (const auto* list : {&spec.read_only, &spec.read_write, &spec.hidden})
    for (const std::string& path : *list)
      if (path.empty() || path[0] != '/') return Invalid(path, "must be an absolute path");
  // A hidden path may hold the root (a state folder holding it): it is masked, not bound.
  for (const auto* list : {&spec.read_only, &spec.read_write})
    for (const std::string& path : *list)
      if (Under(spec.root, path) || Under(path, spec.root))
        return Invalid(path, absl::StrCat("overlaps the sandbox root ", spec.root));

  SandboxPlan plan;
  std::vector<std::string> covered;
  for (const std::string& path : spec.read_only) {
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) covered.push_back(path);
  }
  Planner p(spec.root, std::move(covered));
  using Kind = Step::Kind;
  const bool root_user = ::geteuid() == 0;
  // The user and PID namespaces were made with the child itself (ForkInto).
  plan.clone_flags_ = CLONE_NEWPID | (root_user ? 0 : CLONE_NEWUSER);
  p.Push(Kind::kUnshare, "", "", kNamespaces, "cannot create namespaces (mount, network, IPC, UTS)");
  if (!root_user) {
    p.Push(Kind::kWrite, "/proc/self/setgroups", "deny", 0, "cannot write /proc/self/setgroups");
    p.Push(Kind::kWrite, "/proc/self/uid_map", absl::StrCat(::geteuid(), " ", ::geteuid(), " 1"), 0,
           "cannot write /proc/self/uid_map");
    p.Push(Kind::kWrite, "/proc/self/gid_map", absl::StrCat(::getegid(), " ", ::getegid(), " 1"), 0,
           "cannot write /proc/self/gid_map");
  }
  p.Push(Kind::kPrivate, "", "/", 0, "cannot make the mounts private");
  p.Push(Kind::kTmpfs, "mode=0755", spec.root, 0, "cannot mount the new root");
  // The private file systems first, so that a listed path under /tmp shows on top of them.
  const std::string scratch = spec.tmpfs_bytes > 0 ? absl::StrCat("mode=1777,size=", spec.tmpfs_bytes) : "mode=1777";
  p.Mkdirs("/tmp");
  p.Push(Kind::kTmpfs, scratch, spec.root + "/tmp", 0, "cannot mount a private /tmp");
  p.Mkdirs("/dev/shm");
  p.Push(Kind::kTmpfs, scratch, spec.root + "/dev/shm", 0, "cannot mount a private /dev/shm");
  for (const std::string& device : spec.devices) p.Device(device);
  p.Mkdirs("/proc");
  // A /proc of its own, read-only, of its PID namespace: no process outside the job exists
  // there (issue 41: a job read another daemon's running job through /proc/<pid>/root), and of
  // the job's own only those the child may trace (hidepid=invisible).
  p.Push(Kind::kProc, "hidepid=invisible", spec.root + "/proc", 0, "cannot mount a /proc of its own");
  std::vector<std::string> read_only = spec.read_only;
  std::sort(read_only.begin(), read_only.end());
  for (const std::string& path : read_only)
    if (absl::Status s = p.Add(path, /*writable=*/false); !s.ok()) return s;
  for (const std::string& path : spec.hidden) p.Hide(path);
  for (const std::string& path : spec.read_write)
    if (absl::Status s = p.Add(path, /*writable=*/true); !s.ok()) return s;
  p.Push(Kind::kPivot, spec.root, spec.root + "/.old", 0, "cannot enter the new root (pivot_root)");
  plan.steps_ = p.Take();
  return plan;
}

const char* SandboxPlan::Apply() const {
  for (const Step& s : steps_) {
    const char* a = s.a.c_str();
    const char* b = s.b.c_str();
    bool ok = true;
    switch (s.kind) {
      case Step::Kind::kUnshare: ok = ::unshare(s.mode) == 0; break;
      case Step::Kind::kWrite: {
        const int fd = ::open(a, O_WRONLY | O_CLOEXEC);
        ok = fd >= 0 && ::write(fd, b, s.b.size()) == static_cast<ssize_t>(s.b.size());
        const int error = errno;
        if (fd >= 0) ::close(fd);
        errno = error;
        break;
      }
      case Step::Kind::kPrivate: ok = ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0; break;
      case Step::Kind::kTmpfs: ok = ::mount("tmpfs", b, "tmpfs", MS_NOSUID | MS_NODEV, a) == 0; break;
      case Step::Kind::kProc:
        ok = ::mount("proc", b, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, a) == 0;
        break;
      case Step::Kind::kMkdir: ok = ::mkdir(b, static_cast<mode_t>(s.mode)) == 0 || errno == EEXIST; break;
      case Step::Kind::kTouch: {
        const int fd = ::open(b, O_WRONLY | O_CREAT | O_CLOEXEC, static_cast<mode_t>(s.mode));
        ok = fd >= 0 || errno == EEXIST;
        const int error = errno;
        if (fd >= 0) ::close(fd);
        errno = error;
        break;
      }
      case Step::Kind::kSymlink: ok = ::symlink(a, b) == 0 || errno == EEXIST; break;
      case Step::Kind::kBind: ok = ::mount(a, b, nullptr, MS_BIND | MS_REC, nullptr) == 0; break;
      case Step::Kind::kReadOnly: {
        // The bind itself, then every mount below it (/sys and /proc have many): a plain
        // remount changes only the top one. A kernel without mount_setattr (before 5.12)
        // keeps the top one read-only only.
        mount_attr attr{};
        attr.attr_set = MOUNT_ATTR_RDONLY;
        ok = ::mount(nullptr, b, nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | s.flags, nullptr) == 0 &&
             (::mount_setattr(AT_FDCWD, b, AT_RECURSIVE, &attr, sizeof attr) == 0 || errno == ENOSYS);
        break;
      }
      case Step::Kind::kPivot:
        ok = (::mkdir(b, 0700) == 0 || errno == EEXIST) && ::syscall(SYS_pivot_root, a, b) == 0 && ::chdir("/") == 0 &&
             ::umount2("/.old", MNT_DETACH) == 0 && ::rmdir("/.old") == 0 &&
             ::mount(nullptr, "/", nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) == 0;
        break;
    }
    if (!ok) return s.failed.c_str();
  }
  return nullptr;
}

pid_t ForkInto(const SandboxPlan* plan) {
  if (plan == nullptr || plan->clone_flags() == 0) return ::fork();
  // Like fork (SIGCHLD to the parent, the child on a copy of this stack), in new namespaces.
  return static_cast<pid_t>(::syscall(SYS_clone, static_cast<unsigned long>(plan->clone_flags()) | SIGCHLD, nullptr,
                                      nullptr, nullptr, nullptr));
}

}  // namespace torchscan::process
