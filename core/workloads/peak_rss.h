// measure_peak_rss: the peak resident set of a workload in a fresh child process
// (//core/workloads:torchscan_rss_child), launched with Boost.Process. No LibTorch here.
#pragma once

#include <string>

#include "proto/report.pb.h"
#include "proto/workload.pb.h"

namespace torchscan::workloads {

// What happened to the child, for logs and the cost benchmark (not part of the metric).
struct RssTrialInfo {
  double wall_s = 0;         // from launch to exit (or kill)
  int exit_code = -1;        // when it exited normally
  int signal = 0;            // when a signal ended it (SIGKILL after a timeout)
  bool timed_out = false;
  std::string stderr_tail;   // last lines the child wrote to stderr
};

// Writes `spec` to a temporary file, runs `child_path SPEC_FILE calls` with stdout/stderr in
// temporary files, waits at most `timeout_s` seconds (then kills it with SIGKILL) and reads
// its result line (rss_protocol.h). Temporary files are removed in every case.
// Returns the metric "peak_rss_bytes" (unit "bytes", method "VmHWM of a fresh child
// process", scope "process start-up + model/input construction + <calls> completed calls; no
// profiling"): with the value and complete = true when the child printed a valid line for
// `calls` calls; otherwise without value, complete = false and the reason in diagnostics
// (child missing or not executable, crash or signal, non-zero exit with its stderr, timeout,
// unparsable output, calls < 1, timeout_s <= 0). Never hangs past timeout_s (plus the time
// to kill and reap), never throws, never reports a number the child did not print.
torchscan::v1::MetricResult MeasurePeakRss(const torchscan::v1::WorkloadSpec& spec, const std::string& child_path,
                                           int calls = 100, double timeout_s = 300, RssTrialInfo* info = nullptr);

}  // namespace torchscan::workloads
