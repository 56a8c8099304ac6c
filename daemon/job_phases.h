// The daemon's record of one job's phases (Job.timeline, and the result's job_timeline): a
// PhaseTimeline (core/phase_timeline.h) fed with the daemon's own phases ("queue wait",
// "worker start (...)", "LibTorch load") and the worker's progress lines (worker_protocol.h).
//
// The worker's RSS children run beside its own phases, so here they are concurrent spans, not
// phases of their own: each "rss <name>" line (a child is handed its trial) opens one, and
// RssChildrenStarted (a cold worker launched with its RSS children, WorkerLaunch.early_children)
// opens "rss children (N started with the worker)" at the worker's launch. The daemon does not
// see a child end; the worker joins every child in "wait for rss" before its first timed block,
// so the spans end when the phase after "wait for rss" begins (or any "warm-up ..."/"timing
// ..." phase, or End): an upper bound of when each ended. The report's own timeline, recorded
// in the worker, has when each child ended. No gRPC; not thread-safe (the daemon holds its
// mutex).
#pragma once

#include <string>
#include <vector>

#include "core/clock.h"
#include "core/phase_timeline.h"
#include "proto/report.pb.h"

namespace torchscan::daemon {

class JobPhases {
 public:
  // As PhaseTimeline's: time 0 is `clock`'s reading now, `started_at` its wall time.
  explicit JobPhases(Clock* clock = SteadyClock(), std::string started_at = "");

  // A phase began (the daemon's, or a worker's progress line): "rss ..." opens a concurrent
  // span; any other opens an own span, ending the open one, and, once past "wait for rss",
  // first ends the open RSS spans.
  void Begin(const std::string& phase);
  // `count` RSS children were started with the worker just now (count > 0; else nothing).
  void RssChildrenStarted(int count);
  // Ends the open own span and the open RSS spans.
  void End();
  v1::Timeline Snapshot() const { return timeline_.Snapshot(); }

 private:
  void EndRss();

  PhaseTimeline timeline_;
  std::vector<int> open_rss_;     // handles of open concurrent spans
  bool waiting_for_rss_ = false;  // the last own phase was "wait for rss"
};

}  // namespace torchscan::daemon
