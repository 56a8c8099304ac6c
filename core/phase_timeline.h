// Records when each phase of a job ran (the report's Timeline, proto/report.proto): the one
// recorder behind core/experiment.h's phases. Time 0 is when the recorder was made (the worker
// makes it as it begins the job); spans are seconds on the injected monotonic clock since
// then, so tests drive it with core/fake_clock.h. No LibTorch.
//
// Phases run one at a time: Begin ends the span still open (at the same instant) before it
// opens the next, so spans never overlap and are kept in the order they began. A phase name
// may repeat (alternating timing rounds). Not thread-safe: one thread records.
#pragma once

#include <string>

#include "core/clock.h"
#include "proto/report.pb.h"

namespace torchscan {

class PhaseTimeline {
 public:
  // Time 0 is `clock`'s reading now; `started_at` is the RFC 3339 wall time of that instant
  // (default: now). `clock` must outlive the recorder.
  explicit PhaseTimeline(Clock* clock = SteadyClock(), std::string started_at = "");

  // Opens a span named `phase` now, first ending the open one, if any, now.
  void Begin(const std::string& phase);

  // Ends the open span now; does nothing when none is open.
  void End();

  // Every span so far, in the order they began; an open span appears ended now (it stays
  // open here).
  v1::Timeline Snapshot() const;

 private:
  double Now() const;
  v1::PhaseSpan* LastSpan();

  Clock* clock_;
  double origin_s_;
  v1::Timeline timeline_;
  bool open_ = false;
};

}  // namespace torchscan
