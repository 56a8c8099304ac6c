// Records when each phase of a job ran (the report's Timeline, proto/report.proto): the one
// recorder behind experiment/experiment.h's phases. Time 0 is when the recorder was made (the worker
// makes it as it begins the job); spans are seconds on the injected monotonic clock since
// then, so tests drive it with core/fake_clock.h. No LibTorch.
//
// The worker's own phases run one at a time: Begin ends the own span still open (at the same
// instant) before it opens the next, so own spans never overlap. Concurrent spans (a phase
// run by a separate process beside the worker's own, e.g. an RSS child) are opened and
// ended explicitly and may overlap anything; the recorder does not judge what they overlap
// (experiment/experiment.cc ends them before timing begins; report/validate.cc checks it). Spans
// are kept in the order they began. A phase name may repeat (alternating timing rounds).
// Thread-safe: a concurrent span may be ended from the thread that waited for its process.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "core/clock.h"
#include "proto/report.pb.h"

namespace torchscan {

class PhaseTimeline {
 public:
  // Time 0 is `clock`'s reading now; `started_at` is the RFC 3339 wall time of that instant
  // (default: now). `clock` must outlive the recorder and, when concurrent spans are ended
  // from other threads, be safe to read from them (SteadyClock is).
  explicit PhaseTimeline(Clock* clock = SteadyClock(), std::string started_at = "");

  // Opens an own span named `phase` now, first ending the open own span, if any, now.
  void Begin(const std::string& phase);

  // Ends the open own span now; does nothing when none is open.
  void End();

  // Opens a concurrent span named `phase` now (PhaseSpan.concurrent true); the open own span,
  // if any, stays open. Returns its handle for EndConcurrent.
  int BeginConcurrent(const std::string& phase);

  // Ends the concurrent span `handle` now; does nothing for a handle that is not an open
  // concurrent span (ended already, or not from BeginConcurrent).
  void EndConcurrent(int handle);

  // Every span so far, in the order they began; an open span appears ended now (it stays
  // open here).
  v1::Timeline Snapshot() const;

  // Seconds on the clock since time 0 (a job's time so far: the compare's time cap).
  double Now() const;

 private:
  Clock* clock_;
  double origin_s_;
  mutable std::mutex mutex_;
  v1::Timeline timeline_;
  int open_own_ = -1;       // index of the open own span; -1 when none
  std::vector<bool> open_;  // per span: still open
};

}  // namespace torchscan
