#include "passes/peak_rss.h"

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <torch/script.h>

namespace torchscan::passes {
namespace {

// Runfiles: bazel test runs in the workspace's runfiles directory.
constexpr char kChild[] = "passes/torchscan_rss_child";
constexpr char kFakeChild[] = "passes/fake_rss_child";

torchscan::v1::WorkloadSpec LinearSpec() {
  torchscan::v1::WorkloadSpec spec;
  spec.mutable_model()->set_builtin(torchscan::v1::ModelSpec::linear);
  return spec;
}

RssTrialOptions Trial(int calls, double timeout_s, int intra_op = 1, int inter_op = 1) {
  RssTrialOptions o;
  o.calls = calls;
  o.timeout_s = timeout_s;
  o.intra_op_threads = intra_op;
  o.inter_op_threads = inter_op;
  return o;
}

// A TorchScript module that counts its calls in an attribute and fails the call that goes
// past `limit`, saved as bytes in a WorkloadSpec with one 4x4 input.
torchscan::v1::WorkloadSpec CountingSpec(int64_t limit) {
  torch::jit::Module m("Counter");
  m.register_attribute("calls", c10::IntType::get(), int64_t{0});
  m.register_attribute("limit", c10::IntType::get(), limit);
  m.define(R"(
def forward(self, x):
    self.calls += 1
    assert self.calls <= self.limit, "more calls than the scope says"
    return x * 2
)");
  std::ostringstream bytes;
  m.save(bytes);
  torchscan::v1::WorkloadSpec spec;
  spec.mutable_model()->mutable_torchscript()->set_module_bytes(bytes.str());
  spec.add_inputs()->mutable_generated()->add_shape(4);
  spec.mutable_inputs(0)->mutable_generated()->add_shape(4);
  return spec;
}

bool DiagnosticsContain(const torchscan::v1::MetricResult& m, const std::string& text) {
  for (const std::string& d : m.diagnostics()) {
    if (d.find(text) != std::string::npos) return true;
  }
  return false;
}

void ExpectUnknown(const torchscan::v1::MetricResult& m, const std::string& reason) {
  EXPECT_FALSE(m.has_value());
  EXPECT_FALSE(m.complete());
  EXPECT_TRUE(DiagnosticsContain(m, reason)) << m.DebugString();
  EXPECT_EQ(m.name(), "peak_rss_bytes");
  EXPECT_EQ(m.method(), "VmHWM of a fresh child process");
}

// A complete figure of the linear model's trial of 100 calls with 1 and 1 threads.
void ExpectLinearPeak(const torchscan::v1::MetricResult& m) {
  ASSERT_TRUE(m.has_value()) << m.DebugString();
  EXPECT_TRUE(m.complete());
  EXPECT_EQ(m.scope(),
            "process start-up + model/input construction + 100 completed calls with 1 intra-op and 1 inter-op "
            "threads; no profiling");
  EXPECT_GT(m.value(), 10.0 * (1 << 20));  // LibTorch alone maps tens of MiB
}

class FakeChildMode {
 public:
  explicit FakeChildMode(const char* mode) { setenv("FAKE_RSS_CHILD_MODE", mode, 1); }
  ~FakeChildMode() { unsetenv("FAKE_RSS_CHILD_MODE"); }
};

TEST(MeasurePeakRss, LinearChildReportsItsPeak) {
  RssTrialInfo info;
  const auto m = MeasurePeakRss(LinearSpec(), kChild, Trial(100, 120), &info);
  ASSERT_TRUE(m.has_value()) << m.DebugString();
  EXPECT_TRUE(m.complete());
  EXPECT_EQ(m.unit(), "bytes");
  EXPECT_EQ(m.scope(),
            "process start-up + model/input construction + 100 completed calls with 1 intra-op and 1 inter-op "
            "threads; no profiling");
  EXPECT_GT(m.value(), 10.0 * (1 << 20));  // LibTorch alone maps tens of MiB
  EXPECT_EQ(info.exit_code, 0);
  EXPECT_GT(info.wall_s, 0);
  std::printf("linear RSS child: %.1f MiB, %.3f s wall\n", m.value() / (1 << 20), info.wall_s);
}

// A child launched before its trial (a warm spare's) reports what a launched one does: its
// start-up is in its VmHWM either way, and the scope is the trial it was given.
TEST(RssTrial, WaitingChildGivenItsTrialReportsThePeak) {
  RssTrial trial = RssTrial::LaunchWaiting(kChild);
  EXPECT_TRUE(trial.waiting());
  trial.Start(LinearSpec(), Trial(100, 120));
  EXPECT_FALSE(trial.waiting());
  ExpectLinearPeak(trial.Await());
}

TEST(RssTrial, WaitingChildNeverGivenATrialIsUnknown) {
  RssTrial trial = RssTrial::LaunchWaiting(kChild);
  ExpectUnknown(trial.Await(), "never given its trial");
  ExpectUnknown(trial.Await(), "already awaited");
}

// A waiting child that died before its trial: the trial is unknown with a reason, and handing
// it the trial does not kill this process (no SIGPIPE).
TEST(RssTrial, WaitingChildThatDiedIsUnknown) {
  FakeChildMode mode("crash");
  RssTrial trial = RssTrial::LaunchWaiting(kFakeChild);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // it has crashed by now
  trial.Start(LinearSpec(), Trial(10, 60));
  const auto m = trial.Await();
  EXPECT_FALSE(m.has_value());
  EXPECT_TRUE(DiagnosticsContain(m, "could not be given its trial") || DiagnosticsContain(m, "signal 11"))
      << m.DebugString();
}

TEST(RssTrial, WaitingChildOfAMissingBinaryIsUnknown) {
  RssTrial trial = RssTrial::LaunchWaiting("/nonexistent/torchscan_rss_child");
  trial.Start(LinearSpec(), Trial(10, 60));
  ExpectUnknown(trial.Await(), "missing or not executable");
}

// What torchscand's launcher does for a cold worker (daemon/worker_launcher.h, WorkerLaunch.
// early_children), with this test as the worker: forks `child --wait` with a socket as its stdin
// and stdout and an anonymous file as its stderr, writes its pid line (`pid_line`, else the
// pid) into the socket, and adopts it. `forked`, when given, receives the child's pid.
RssTrial AdoptChild(const char* child, const std::string& pid_line = "", pid_t* forked = nullptr) {
  int pair[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  const int err = ::memfd_create("rss child stderr", MFD_CLOEXEC);
  EXPECT_GE(err, 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pair[1], STDIN_FILENO);
    ::dup2(pair[1], STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::execl(child, child, "--wait", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (forked != nullptr) *forked = pid;
  const std::string line = (pid_line.empty() ? std::to_string(pid) : pid_line) + "\n";
  EXPECT_EQ(::write(pair[1], line.data(), line.size()), static_cast<ssize_t>(line.size()));
  ::close(pair[1]);
  return RssTrial::AdoptWaiting(pair[0], err);
}

// Returns once child `pid` has ended, leaving it unreaped for the trial's Await (no fixed
// sleep: a loaded machine may take longer than any to start and end it).
void AwaitEndedUnreaped(pid_t pid) {
  siginfo_t info{};
  int waited;
  do {
    waited = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT);
  } while (waited != 0 && errno == EINTR);
  EXPECT_EQ(waited, 0) << std::strerror(errno);
}

// An adopted fake child in `mode` that has ended (unreaped), handed its trial afterwards.
RssTrial AdoptedChildThatEnded(const char* mode) {
  FakeChildMode fake(mode);
  pid_t pid = 0;
  RssTrial trial = AdoptChild(kFakeChild, "", &pid);
  AwaitEndedUnreaped(pid);
  trial.Start(LinearSpec(), Trial(10, 60));
  return trial;
}

// A child the launcher forked in this process before its exec (a cold worker's) reports what
// a launched one does, its result read from its socket.
TEST(RssTrial, AdoptedChildGivenItsTrialReportsThePeak) {
  RssTrial trial = AdoptChild(kChild);
  EXPECT_TRUE(trial.waiting());
  trial.Start(LinearSpec(), Trial(100, 120));
  RssTrialInfo info;
  ExpectLinearPeak(trial.Await(&info));
  EXPECT_EQ(info.exit_code, 0);
}

// An adopted child that ended before its trial: a clear reason with how it ended and its
// stderr (read from its anonymous file), not a hang.
TEST(RssTrial, AdoptedChildThatEndedBeforeItsTrialSaysHow) {
  RssTrial trial = AdoptedChildThatEnded("fail");
  const auto start = std::chrono::steady_clock::now();
  const auto m = trial.Await();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ExpectUnknown(m, "the waiting RSS child ended before it was given its trial: RSS child exited with status 3");
  EXPECT_TRUE(DiagnosticsContain(m, "fake child: model file vanished")) << m.DebugString();
}

TEST(RssTrial, AdoptedChildThatCrashedBeforeItsTrialSaysHow) {
  RssTrial trial = AdoptedChildThatEnded("crash");
  ExpectUnknown(trial.Await(), "ended before it was given its trial: RSS child was killed by signal 11");
}

// Pid 0: the launcher could not fork it (a child runs here anyway; it exits at once).
TEST(RssTrial, AdoptedChildThatWasNotForkedIsUnknown) {
  FakeChildMode mode("fail");
  RssTrial trial = AdoptChild(kFakeChild, "0");
  trial.Start(LinearSpec(), Trial(10, 60));
  ExpectUnknown(trial.Await(), "could not be forked");
}

// LibTorch's default on this machine is one intra-op thread per core; 3 and 2 are neither
// that nor 1, so a child that ignored them would be caught.
TEST(MeasurePeakRss, ChildRunsWithTheThreadsOfTheJob) {
  const auto m = MeasurePeakRss(LinearSpec(), kChild, Trial(10, 120, 3, 2));
  ASSERT_TRUE(m.has_value()) << m.DebugString();
  EXPECT_NE(m.scope().find("10 completed calls with 3 intra-op and 2 inter-op threads"), std::string::npos)
      << m.scope();
  const auto one = MeasurePeakRss(LinearSpec(), kChild, Trial(10, 120, 1, 1));
  ASSERT_TRUE(one.has_value()) << one.DebugString();
  EXPECT_NE(one.scope().find("with 1 intra-op and 1 inter-op threads"), std::string::npos) << one.scope();
}

// The module fails its 101st call: 100 calls complete only when the child makes no call
// besides the 100 of its scope (no trial call while building), and 101 must fail.
TEST(MeasurePeakRss, ChildCompletesExactlyTheCallsOfItsScope) {
  const auto exact = MeasurePeakRss(CountingSpec(100), kChild, Trial(100, 120));
  ASSERT_TRUE(exact.has_value()) << exact.DebugString();
  EXPECT_NE(exact.scope().find("+ 100 completed calls"), std::string::npos) << exact.scope();
  ExpectUnknown(MeasurePeakRss(CountingSpec(100), kChild, Trial(101, 120)), "more calls than the scope says");
}

TEST(MeasurePeakRss, ChildThatIgnoresTheThreadsIsUnknown) {
  FakeChildMode mode("threads");
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kFakeChild, Trial(5, 30)), "ran with 7 intra-op threads, asked for 1");
}

TEST(MeasurePeakRss, MissingChildIsUnknown) {
  ExpectUnknown(MeasurePeakRss(LinearSpec(), "passes/no_such_child", Trial(100, 10)), "missing or not executable");
  ExpectUnknown(MeasurePeakRss(LinearSpec(), "", Trial(100, 10)), "missing or not executable");
}

TEST(MeasurePeakRss, CrashingChildIsUnknownWithTheSignal) {
  FakeChildMode mode("crash");
  RssTrialInfo info;
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kFakeChild, Trial(100, 30), &info), "killed by signal 11");
  EXPECT_EQ(info.signal, 11);
}

TEST(MeasurePeakRss, HangingChildIsKilledAtTheTimeout) {
  FakeChildMode mode("hang");
  RssTrialInfo info;
  const auto start = std::chrono::steady_clock::now();
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kFakeChild, Trial(100, 0.5), &info), "timed out after 0.5 s");
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(info.timed_out);
  EXPECT_LT(elapsed, 5.0);
}

// A job that fails while its RSS child runs cancels the trial from another thread: the
// child is killed well before its timeout, and the trial says why it has no value.
TEST(MeasurePeakRss, CancelledChildIsKilledAndUnknown) {
  FakeChildMode mode("hang");
  std::atomic<bool> cancel{false};
  RssTrialOptions options = Trial(100, 60);
  options.cancel = &cancel;
  RssTrialInfo info;
  std::thread canceller([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kFakeChild, options, &info), "cancelled");
  canceller.join();
  EXPECT_TRUE(info.cancelled);
  EXPECT_FALSE(info.timed_out);
  EXPECT_EQ(info.signal, SIGKILL);
  EXPECT_LT(info.wall_s, 30.0);  // half the timeout: the cancel, not the timeout, ended it

  RssTrialInfo early;  // cancelled before it started: killed at the first poll
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kFakeChild, options, &early), "cancelled");
  EXPECT_TRUE(early.cancelled);
}

TEST(MeasurePeakRss, FailingChildIsUnknownWithItsStderr) {
  FakeChildMode mode("fail");
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kFakeChild, Trial(100, 30)), "exited with status 3");
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kFakeChild, Trial(100, 30)), "model file vanished");
}

TEST(MeasurePeakRss, GarbageOutputIsUnknown) {
  FakeChildMode mode("garbage");
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kFakeChild, Trial(100, 30)), "hello from a confused child");
}

TEST(MeasurePeakRss, FakeChildContractHolds) {
  FakeChildMode mode("ok");
  const auto m = MeasurePeakRss(LinearSpec(), kFakeChild, Trial(7, 30));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m.value(), 4096);
}

TEST(MeasurePeakRss, RealChildWithABogusSpecFailsWithTheBuildError) {
  torchscan::v1::WorkloadSpec spec;
  spec.mutable_model()->mutable_torchscript()->set_path("/nonexistent/model.pt");
  spec.add_inputs()->mutable_generated()->add_shape(4);
  ExpectUnknown(MeasurePeakRss(spec, kChild, Trial(100, 60)), "exited with status 2");
  ExpectUnknown(MeasurePeakRss(spec, kChild, Trial(100, 60)), "model.torchscript.path");
}

TEST(MeasurePeakRss, BadArgumentsAreUnknown) {
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kChild, Trial(0, 10)), "at least 1 call");
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kChild, Trial(100, 0)), "positive timeout");
  ExpectUnknown(MeasurePeakRss(LinearSpec(), kChild, Trial(100, 10, -1, 1)), "thread counts must be >= 0");
}

}  // namespace
}  // namespace torchscan::passes
