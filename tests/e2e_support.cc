#include "tests/e2e_support.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <boost/process.hpp>

namespace torchscan::e2e {
namespace {

namespace bp = boost::process;

// Boost.Process reports exec failures through a pipe; a fork in another thread while that
// pipe is open leaks it into a long-lived child and stalls this spawn until that child
// exits. Tests start clients from several threads, so spawns take turns.
std::mutex& SpawnMutex() {
  static std::mutex m;
  return m;
}

template <typename... Args>
bp::child Spawn(Args&&... args) {
  std::lock_guard<std::mutex> lock(SpawnMutex());
  return bp::child(std::forward<Args>(args)...);
}

// Polls instead of boost::process::child::wait_for, whose SIGCHLD wait misses exits when
// several threads have children. True when the child exited within `timeout_s`.
bool WaitForExit(bp::child& child, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (child.running()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// A daemon killed with -9 can leave a child it had forked but not yet exec'd holding the state
// folder's lock (close-on-exec) for a moment: a restart waits for the lock to be free, or for
// `timeout_s`, after which the daemon's own "in use" error says what holds it.
void WaitForStateLockFree(const std::string& state_dir, double timeout_s) {
  const int fd = ::open((state_dir + "/torchscand.lock").c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return;  // no daemon has used this folder yet
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::close(fd);  // releases the lock if taken
}

}  // namespace

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Runfile(const std::string& path) { return std::string(std::getenv("TEST_SRCDIR")) + "/torchscan/" + path; }

std::string TempDir(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

std::string WorkingDir() { return TempDir("cwd"); }

std::string ProjectPython() {
  const char* venv = std::getenv("TORCHSCAN_VENV");
  return std::string(venv != nullptr && *venv != '\0' ? venv : "/opt/torchscan/venv") + "/bin/python";
}

struct Background::Process {
  bp::child child;
};

Background::Background(const std::string& program, const std::vector<std::string>& args) {
  static std::atomic<int> counter{0};
  base_ = TempDir("commands") + "/" + std::to_string(++counter);
  process_ = std::make_unique<Process>();
  process_->child = Spawn(program, bp::args(args), bp::std_in<bp::null, bp::std_out> base_ + ".out",
                          bp::std_err > base_ + ".err", bp::start_dir = WorkingDir());
}

Background::~Background() {
  if (process_->child.running()) process_->child.terminate();
}

int Background::pid() const { return process_->child.id(); }

std::string Background::Err() const { return Slurp(base_ + ".err"); }

bool Background::WaitForErr(const std::string& text, double timeout_s) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (Err().find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() > deadline || !process_->child.running())
      return Err().find(text) != std::string::npos;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

CommandResult Background::Wait(double timeout_s) {
  CommandResult result;
  if (!WaitForExit(process_->child, timeout_s)) {
    process_->child.terminate();
    result.err = "timed out after " + std::to_string(timeout_s) + " s\n";
  }
  process_->child.wait();
  const int native = process_->child.native_exit_code();
  result.exit_code = WIFEXITED(native) ? WEXITSTATUS(native) : -1;
  result.out = Slurp(base_ + ".out");
  result.err += Slurp(base_ + ".err");
  return result;
}

CommandResult Run(const std::string& program, const std::vector<std::string>& args, double timeout_s) {
  Background command(program, args);
  return command.Wait(timeout_s);
}

struct TestDaemon::Process {
  bp::child child;
};

TestDaemon::TestDaemon(std::string state_dir, std::vector<std::string> extra_flags)
    : state_dir_(std::move(state_dir)), extra_flags_(std::move(extra_flags)) {
  // Unix socket paths are limited to 107 bytes, and $TEST_TMPDIR is longer: a short folder.
  char socket_dir[] = "/tmp/tsd-XXXXXX";
  if (!::mkdtemp(socket_dir)) throw std::runtime_error("cannot create a socket folder under /tmp");
  socket_dir_ = socket_dir;
  address_ = "unix:" + socket_dir_ + "/d.sock";
  Start();
}

TestDaemon::~TestDaemon() {
  if (process_ && process_->child.running()) {
    ::kill(process_->child.id(), SIGTERM);
    if (!WaitForExit(process_->child, 15)) process_->child.terminate();
  }
  std::error_code ec;
  std::filesystem::remove_all(socket_dir_, ec);
}

void TestDaemon::Start() {
  // A second torchscand on a state folder still held would exit at once ("in use"), while the
  // first one answers the readiness check below: a race a test must not depend on.
  if (Running()) throw std::logic_error("TestDaemon::Start: the daemon is still running; Kill9() it first");
  WaitForStateLockFree(state_dir_, 10);
  std::vector<std::string> args = {"--state-dir", state_dir_, "--listen", address_};
  // As root the daemon would run workers as "nobody", who cannot reach the runfiles under
  // /root: a test daemon keeps its workers as the test's user unless a test asks otherwise.
  const bool user_given = std::find(extra_flags_.begin(), extra_flags_.end(), "--worker-user") != extra_flags_.end();
  if (::geteuid() == 0 && !user_given) args.insert(args.end(), {"--worker-user", "root"});
  args.insert(args.end(), extra_flags_.begin(), extra_flags_.end());
  process_ = std::make_unique<Process>();
  process_->child = Spawn(Runfile("daemon/torchscand"), bp::args(args), bp::std_in<bp::null, bp::std_out> bp::null,
                          bp::std_err > state_dir_ + ".log");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!process_->child.running()) throw std::runtime_error("torchscand exited: " + Slurp(state_dir_ + ".log"));
    if (Client({"info"}, 10).exit_code == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw std::runtime_error("torchscand did not answer: " + Slurp(state_dir_ + ".log"));
}

void TestDaemon::Kill9() {
  ::kill(process_->child.id(), SIGKILL);
  process_->child.wait();
}

bool TestDaemon::Running() { return process_ && process_->child.running(); }

int TestDaemon::pid() const { return process_->child.id(); }

CommandResult TestDaemon::Client(const std::vector<std::string>& args, double timeout_s) const {
  std::vector<std::string> all = {"--daemon", address_};
  all.insert(all.end(), args.begin(), args.end());
  return Run(Runfile("client/torchscan-client"), all, timeout_s);
}

}  // namespace torchscan::e2e
