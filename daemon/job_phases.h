// The daemon's record of one job's phases (Job.timeline, and the result's job_timeline): a
// PhaseTimeline (core/phase_timeline.h) fed with the daemon's own phases ("queue wait",
// "worker start (...)", "LibTorch load") and the worker's progress lines (worker_protocol.h).
//
// Some of the worker's children run beside its own phases, so here they are concurrent spans,
// not phases of their own; which phase is which, worker_protocol.h's ClassifyPhase says (the
// RSS children's "rss <run>" lines). Each concurrent line opens a span, and
// EarlyChildrenStarted (a cold worker launched with children, WorkerLaunch.early_children)
// opens one at the worker's launch. The daemon does not see a child end; the worker joins them
// in its join phase before its first timed block, so the spans end when the phase after the
// join begins (or any timed phase, or End): an upper bound of when each ended. The report's
// own timeline, recorded in the worker, has when each child ended. No gRPC; not thread-safe
// (the daemon holds its mutex).
#pragma once

#include <string>
#include <vector>

#include "core/clock.h"
#include "core/phase_timeline.h"
#include "proto/report.pb.h"

namespace torchscan::daemon {

// Phases one job may open (its own and concurrent spans, the daemon's included); later ones are
// not kept. A calibration of kMaxCalibrationPairs fresh pairs opens about 2,000 (some 10 a pair); past
// this a worker has gone wrong, and its timeline must not grow the daemon (issue 41: 13,415
// phases made a 0.05 s job take 116 s).
inline constexpr int kMaxJobPhases = 5000;

class JobPhases {
 public:
  // As PhaseTimeline's: time 0 is `clock`'s reading now, `started_at` its wall time.
  explicit JobPhases(Clock* clock = SteadyClock(), std::string started_at = "");

  // A phase began (the daemon's, or a worker's progress line): a concurrent one opens a
  // concurrent span; any other opens an own span, ending the open one, and, when it is timed or
  // follows the join, first ends the open concurrent spans. False (nothing kept) once
  // kMaxJobPhases were begun.
  bool Begin(const std::string& phase);
  // `count` children were started with the worker just now (count > 0; else nothing): one
  // span, worker_protocol.h's EarlyChildrenSpan.
  void EarlyChildrenStarted(int count);
  // Ends the open own span and the open concurrent spans.
  void End();
  v1::Timeline Snapshot() const { return timeline_.Snapshot(); }

 private:
  void EndConcurrent();

  PhaseTimeline timeline_;
  std::vector<int> open_concurrent_;  // handles of open concurrent spans
  bool after_join_ = false;           // the last own phase was the join
  int begun_ = 0;                     // phases begun (kMaxJobPhases at most)
};

}  // namespace torchscan::daemon
