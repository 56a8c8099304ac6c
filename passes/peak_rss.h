// measure_peak_rss: the peak resident set of a workload in a fresh child process
// (//passes:torchscan_rss_child), started and supervised with process/. No LibTorch here.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "proto/report.pb.h"
#include "proto/spec_limits.h"
#include "proto/workload.pb.h"

namespace torchscan::passes {

// What happened to the child, for logs and the cost benchmark (not part of the metric).
struct RssTrialInfo {
  double wall_s = 0;   // from launch to exit (or kill)
  int exit_code = -1;  // when it exited normally
  int signal = 0;      // when a signal ended it (SIGKILL after a timeout)
  bool timed_out = false;
  bool cancelled = false;   // killed because options.cancel was set
  std::string stderr_tail;  // last lines the child wrote to stderr
};

// What one trial runs. The child applies the thread counts before LibTorch does any work
// (as the worker does), builds the workload without a trial call and completes `calls`
// calls, so that the measured process runs what its report says.
struct RssTrialOptions {
  int calls = kRssChildCalls;            // completed calls after construction (>= 1)
  double timeout_s = kRssChildTimeoutS;  // the child is killed (SIGKILL) past it (> 0)
  int intra_op_threads = 0;              // torch::set_num_threads in the child; 0 keeps LibTorch's default
  int inter_op_threads = 0;              // at::set_num_interop_threads in the child; 0 keeps the default
  // When set and it becomes true (from another thread), the child is killed (SIGKILL) at the
  // next poll (within 20 ms) and the trial ends without a value: a job that failed while its
  // RSS child ran does not wait for it. nullptr (default): never cancelled. Must outlive the call.
  const std::atomic<bool>* cancel = nullptr;
};

// Writes `spec` to a temporary file, runs `child_path SPEC_FILE CALLS INTRA INTER` with
// stdout/stderr in anonymous files (memfd), waits at most `timeout_s` seconds (then kills it with
// SIGKILL) and reads its result line (rss_protocol.h). Temporary files are removed in every
// case. Returns the metric "peak_rss_bytes" (unit "bytes", method "VmHWM of a fresh child
// process", scope generated from what the child reports it ran: "process start-up +
// model/input construction + <calls> completed calls with <n> intra-op and <m> inter-op
// threads; no profiling"): with the value and complete = true when the child printed a valid
// line for exactly `calls` calls and the thread counts asked for (when not 0); otherwise
// without value, complete = false and the reason in diagnostics (child missing or not
// executable, crash or signal, non-zero exit with its stderr, timeout, unparsable output,
// other calls or threads than asked, calls < 1, timeout_s <= 0, cancelled). Never hangs past timeout_s
// (plus the time to kill and reap), never throws, never reports a number the child did not
// print. The child dies with the calling thread (PR_SET_PDEATHSIG SIGKILL): killing the
// process that measures (a worker, after kill -9 of its torchscand) leaves no child behind.
// One trial in two steps, for running several at once (experiment/concurrent_rss.h): Launch forks
// and starts the child on the calling thread, and returns once it runs (or could not start);
// Await, from any thread, once, waits for it and returns what MeasurePeakRss returns. The
// child dies with the thread that called Launch. A trial destroyed without Await kills its
// child (SIGKILL) and reaps it. Why the split: every fork of a process that runs LibTorch must
// come from the thread that runs it, while it runs no LibTorch work. OpenBLAS shuts its thread
// pool down in a fork handler (pthread_atfork); a fork from another thread during a BLAS call
// left that call waiting forever for threads that no longer existed (gdb of a hung worker: the
// main thread spinning in exec_blas_async inside the build's trial forward, no BLAS threads).
class RssTrial {
 public:
  static RssTrial Launch(const torchscan::v1::WorkloadSpec& spec, const std::string& child_path,
                         const RssTrialOptions& options = RssTrialOptions());
  // A child started before its trial is known (a warm spare worker's): forked now, it loads
  // LibTorch and waits (torchscan_rss_child --wait) with a socket as its stdin and stdout and an
  // anonymous file as its stderr, as an adopted child (below). Start hands it its trial; options.
  // timeout_s counts from Start. A child that cannot start, or died while it waited, gives
  // the reason at Await, as a failed Launch does ("the waiting RSS child ended before it was
  // given its trial: RSS child was killed by signal 9 ...").
  static RssTrial LaunchWaiting(const std::string& child_path);
  // A waiting child that this process did not fork itself but inherited (a cold worker's:
  // the launcher forked it in this process before exec, worker/worker_protocol.h
  // --rss-waiting): `socket_fd` is its stdin and stdout, and holds first its pid line
  // (process/pid_line.h), then,
  // after Start, its result line, read from there instead of a file; `stderr_fd` is its
  // stderr. Takes both fds (closed when the trial ends). It is this process's child (Await
  // reaps it) and dies with this process's main thread. A missing pid line (pid 0, nothing
  // within 5 s) gives the reason at Await, as a failed Launch does.
  static RssTrial AdoptWaiting(int socket_fd, int stderr_fd);
  bool waiting() const;  // launched by LaunchWaiting or adopted, and not yet started
  // Hands a waiting child its trial (the four words as one line on its socket, then end of
  // file); options.timeout_s counts from here. Does nothing unless waiting().
  void Start(const torchscan::v1::WorkloadSpec& spec, const RssTrialOptions& options = RssTrialOptions());
  torchscan::v1::MetricResult Await(RssTrialInfo* info = nullptr);

  RssTrial(RssTrial&&) noexcept;
  RssTrial& operator=(RssTrial&&) noexcept;
  ~RssTrial();

 private:
  RssTrial();
  // A trial whose options and path are checked and clock started, its child not yet launched.
  static RssTrial Begin(const std::string& child_path, const RssTrialOptions& options, bool waiting);
  struct State;
  std::unique_ptr<State> state_;
};

// Launch and Await on the calling thread.
torchscan::v1::MetricResult MeasurePeakRss(const torchscan::v1::WorkloadSpec& spec, const std::string& child_path,
                                           const RssTrialOptions& options = RssTrialOptions(),
                                           RssTrialInfo* info = nullptr);

}  // namespace torchscan::passes
