// measure_peak_rss: the peak resident set of a workload in a fresh child process
// (//passes:torchscan_rss_child), launched with Boost.Process. No LibTorch here.
#pragma once

#include <atomic>
#include <string>

#include "proto/report.pb.h"
#include "proto/spec_limits.h"
#include "proto/workload.pb.h"

// (Namespace torchscan::workloads kept from when the passes lived among the workloads.)
namespace torchscan::workloads {

// What happened to the child, for logs and the cost benchmark (not part of the metric).
struct RssTrialInfo {
  double wall_s = 0;         // from launch to exit (or kill)
  int exit_code = -1;        // when it exited normally
  int signal = 0;            // when a signal ended it (SIGKILL after a timeout)
  bool timed_out = false;
  bool cancelled = false;    // killed because options.cancel was set
  std::string stderr_tail;   // last lines the child wrote to stderr
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
// stdout/stderr in temporary files, waits at most `timeout_s` seconds (then kills it with
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
torchscan::v1::MetricResult MeasurePeakRss(const torchscan::v1::WorkloadSpec& spec, const std::string& child_path,
                                           const RssTrialOptions& options = RssTrialOptions(),
                                           RssTrialInfo* info = nullptr);

}  // namespace torchscan::workloads
