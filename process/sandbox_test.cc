#include "process/sandbox.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace torchscan::process {
namespace {

namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A root for the sandbox, and beside it a visible folder holding a state folder with two jobs
// and a token file, under the test's temporary folder.
struct Fixture {
  std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/sandbox-" + std::to_string(::getpid());
  std::string root = dir + "/root";
  std::string visible = dir + "/visible";
  std::string state = visible + "/state";
  std::string victim = state + "/jobs/job-000001";
  std::string own = state + "/jobs/job-000002";
  std::string token = visible + "/token";

  Fixture() {
    fs::remove_all(dir);
    fs::create_directories(root);
    fs::create_directories(victim);
    fs::create_directories(own);
    std::ofstream(victim + "/spec.json") << "SECRET MODEL";
    std::ofstream(token) << "TOKEN";
    std::ofstream(dir + "/unlisted") << "beside the visible folder, not listed";
  }
  ~Fixture() { fs::remove_all(dir); }

  SandboxSpec Spec() const {
    SandboxSpec spec;
    spec.root = root;
    spec.read_only = {"/usr", "/bin", "/lib", "/etc", "/sys", visible};
    spec.hidden = {state, token, "/etc/shadow"};
    spec.read_write = {own};
    spec.devices = DefaultSandboxDevices();
    return spec;
  }
};

// Runs `check` in a forked child inside `plan`'s sandbox; returns what it wrote (or the
// sandbox's failure line).
template <typename Check>
std::string InSandbox(const SandboxPlan& plan, Check check) {
  int out[2];
  if (::pipe(out) != 0) return "pipe failed";
  const pid_t pid = ForkInto(&plan);
  if (pid == 0) {
    ::close(out[0]);
    if (const char* failed = plan.Apply()) {
      (void)!::write(out[1], failed, std::strlen(failed));
      ::_exit(1);
    }
    const std::string result = check();
    (void)!::write(out[1], result.data(), result.size());
    ::_exit(0);
  }
  ::close(out[1]);
  std::string text;
  char buffer[512];
  ssize_t n;
  while ((n = ::read(out[0], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return text;
}

std::string Errno(int result) { return result == 0 ? "ok" : std::strerror(errno); }

TEST(Sandbox, ShowsOnlyWhatItIsGiven) {
  Fixture f;
  absl::StatusOr<SandboxPlan> plan = SandboxPlan::Prepare(f.Spec());
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string seen = InSandbox(*plan, [&] {
    std::string r;
    r += "victim:" + Errno(::access((f.victim + "/spec.json").c_str(), F_OK)) + "\n";
    r += "token:[" + Read(f.token) + "]\n";
    r += "shadow:[" + Read("/etc/shadow") + "]\n";
    r += "unlisted:" + Errno(::access((f.dir + "/unlisted").c_str(), F_OK)) + "\n";
    std::ofstream(f.own + "/result.json") << "mine";
    r += "own:[" + Read(f.own + "/result.json") + "]\n";
    r += "etc:" + Errno(::open("/etc/torchscan-sandbox-probe", O_WRONLY | O_CREAT, 0644) >= 0 ? 0 : -1) + "\n";
    std::ofstream("/tmp/scratch") << "tmp";
    r += "tmp:[" + Read("/tmp/scratch") + "]\n";
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(22);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    r += "net:" + Errno(::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a)) + "\n";
    r += "null:" + Errno(::access("/dev/null", W_OK)) + "\n";
    // Mounts below a read-only path are read-only too (/sys has many), and so is /proc.
    // /sys/fs/cgroup is a mount of its own (cgroup v1's tmpfs or cgroup2): a folder there
    // must not be made (one that was is removed again).
    const std::string probe = "/sys/fs/cgroup/torchscan-sandbox-probe-" + std::to_string(::getpid());
    const int made = ::mkdir(probe.c_str(), 0755);
    r += "sys:" + Errno(made) + "\n";
    if (made == 0) ::rmdir(probe.c_str());
    const int oom = ::open("/proc/self/oom_score_adj", O_WRONLY);
    r += "proc:" + Errno(oom >= 0 ? 0 : -1) + "\n";
    return r;
  });
  EXPECT_NE(seen.find("victim:No such file or directory\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("token:[]\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("shadow:[]\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("unlisted:No such file or directory\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("own:[mine]\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("etc:Read-only file system\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("tmp:[tmp]\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("net:Network is unreachable\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("null:ok\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("sys:Read-only file system\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("proc:Read-only file system\n"), std::string::npos) << seen;
  // Outside, nothing changed but the job's own result; the private /tmp left nothing here.
  EXPECT_EQ(Read(f.victim + "/spec.json"), "SECRET MODEL");
  EXPECT_EQ(Read(f.own + "/result.json"), "mine");
  EXPECT_FALSE(fs::exists("/etc/torchscan-sandbox-probe"));
  EXPECT_TRUE(fs::is_empty(f.root));
}

// The child is process 1 of a PID namespace of its own, with a /proc of it: no process of the
// machine exists there, not even its parent (issue 41: a job read another daemon's running job
// through /proc/<pid>/root), and a child it forks is process 2. Once it runs as another user
// (as a worker does, when the parent is root) the /proc still shows its own processes.
TEST(Sandbox, ProcShowsOnlyTheChildsOwnProcesses) {
  Fixture f;
  absl::StatusOr<SandboxPlan> plan = SandboxPlan::Prepare(f.Spec());
  ASSERT_TRUE(plan.ok()) << plan.status();
  const pid_t parent = ::getpid();
  const std::string seen = InSandbox(*plan, [&] {
    if (::geteuid() == 0 && (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0))
      return std::string("cannot become nobody: ") + std::strerror(errno);
    std::string r = "pid:" + std::to_string(::getpid()) + "\n";
    r += "parent:" + Errno(::access(("/proc/" + std::to_string(parent) + "/cmdline").c_str(), F_OK)) + "\n";
    r += "self:" + Errno(::access("/proc/self/status", R_OK)) + "\n";
    r += "cpuinfo:" + Errno(::access("/proc/cpuinfo", R_OK)) + "\n";
    const pid_t child = ::fork();
    if (child == 0) {
      ::pause();
      ::_exit(0);
    }
    r += "child:" + std::to_string(child) + "\n";
    // Its child changed user with it, so is not dumpable: hidepid may hide it too.
    std::string others;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (std::all_of(name.begin(), name.end(), ::isdigit) && name != "1" && name != "2") others += " " + name;
    }
    r += "others:[" + others + "]\n";
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    return r;
  });
  EXPECT_NE(seen.find("pid:1\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("parent:No such file or directory\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("self:ok\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("cpuinfo:ok\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("child:2\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("others:[]\n"), std::string::npos) << seen;  // none but itself and its child
}

// /tmp and /dev/shm hold at most tmpfs_bytes each: a job cannot fill the machine's memory there
// (issue 41: 7.8 GB held in an unlimited /tmp).
TEST(Sandbox, ScratchFileSystemsHoldAtMostTheirSize) {
  Fixture f;
  SandboxSpec spec = f.Spec();
  spec.tmpfs_bytes = 1 << 20;
  absl::StatusOr<SandboxPlan> plan = SandboxPlan::Prepare(spec);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string seen = InSandbox(*plan, [&] {
    std::string r;
    for (const char* path : {"/tmp/fill", "/dev/shm/fill"}) {
      const int fd = ::open(path, O_WRONLY | O_CREAT, 0600);
      const std::string block(64 << 10, 'x');
      int64_t written = 0;
      for (ssize_t n; written < (4 << 20) && (n = ::write(fd, block.data(), block.size())) > 0;) written += n;
      r += std::string(path) + ":" + std::to_string(written) + ":" + std::strerror(errno) + "\n";
      ::close(fd);
    }
    return r;
  });
  EXPECT_NE(seen.find("/tmp/fill:1048576:No space left on device\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("/dev/shm/fill:1048576:No space left on device\n"), std::string::npos) << seen;
}

TEST(Sandbox, SymbolicLinksAreCopiedAndFollowed) {
  Fixture f;
  fs::create_directories(f.dir + "/real/lib");
  std::ofstream(f.dir + "/real/lib/libx.so") << "LIB";
  fs::create_directory_symlink("real", f.dir + "/link");
  SandboxSpec spec = f.Spec();
  spec.read_only = {"/usr", "/bin", "/lib", f.dir + "/link/lib"};
  absl::StatusOr<SandboxPlan> plan = SandboxPlan::Prepare(spec);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string seen = InSandbox(*plan, [&] { return Read(f.dir + "/link/lib/libx.so"); });
  EXPECT_EQ(seen, "LIB");
}

TEST(Sandbox, RefusesPathsItCannotUse) {
  Fixture f;
  SandboxSpec spec = f.Spec();
  spec.read_only.push_back("usr/lib");
  EXPECT_EQ(SandboxPlan::Prepare(spec).status().message(), "sandbox: usr/lib: must be an absolute path");
  spec = f.Spec();
  spec.read_only.push_back(f.dir + "/missing");
  EXPECT_EQ(SandboxPlan::Prepare(spec).status().message(),
            "sandbox: " + f.dir + "/missing: cannot be read: No such file or directory");
  spec = f.Spec();
  std::ofstream(f.root + "/left") << "x";
  EXPECT_EQ(SandboxPlan::Prepare(spec).status().message(), "sandbox: " + f.root + ": the root must be empty");
  fs::remove(f.root + "/left");
  spec.read_write = {f.root + "/inside"};
  EXPECT_EQ(SandboxPlan::Prepare(spec).status().message(),
            "sandbox: " + f.root + "/inside: overlaps the sandbox root " + f.root);
}

}  // namespace
}  // namespace torchscan::process
