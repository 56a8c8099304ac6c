#include "core/phase_timeline.h"

#include <utility>

#include "core/timestamp.h"

namespace torchscan {

PhaseTimeline::PhaseTimeline(Clock* clock, std::string started_at) : clock_(clock), origin_s_(clock->NowSeconds()) {
  timeline_.set_started_at(started_at.empty() ? NowRfc3339() : std::move(started_at));
  timeline_.set_clock(clock->Name());
}

double PhaseTimeline::Now() const { return clock_->NowSeconds() - origin_s_; }

v1::PhaseSpan* PhaseTimeline::LastSpan() { return timeline_.mutable_spans(timeline_.spans_size() - 1); }

void PhaseTimeline::Begin(const std::string& phase) {
  const double now = Now();
  if (open_) LastSpan()->set_end_s(now);
  v1::PhaseSpan* span = timeline_.add_spans();
  span->set_phase(phase);
  span->set_start_s(now);
  span->set_end_s(now);
  open_ = true;
}

void PhaseTimeline::End() {
  if (!open_) return;
  LastSpan()->set_end_s(Now());
  open_ = false;
}

v1::Timeline PhaseTimeline::Snapshot() const {
  v1::Timeline copy = timeline_;
  if (open_) copy.mutable_spans(copy.spans_size() - 1)->set_end_s(Now());
  return copy;
}

}  // namespace torchscan
