#include "core/phase_timeline.h"

#include <utility>

#include "core/timestamp.h"

namespace torchscan {

PhaseTimeline::PhaseTimeline(Clock* clock, std::string started_at) : clock_(clock), origin_s_(clock->NowSeconds()) {
  timeline_.set_started_at(started_at.empty() ? NowRfc3339() : std::move(started_at));
  timeline_.set_clock(clock->Name());
}

double PhaseTimeline::Now() const { return clock_->NowSeconds() - origin_s_; }

void PhaseTimeline::Begin(const std::string& phase) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const double now = Now();
  if (open_own_ >= 0) {
    timeline_.mutable_spans(open_own_)->set_end_s(now);
    open_[open_own_] = false;
  }
  v1::PhaseSpan* span = timeline_.add_spans();
  span->set_phase(phase);
  span->set_start_s(now);
  span->set_end_s(now);
  open_own_ = timeline_.spans_size() - 1;
  open_.push_back(true);
}

void PhaseTimeline::End() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (open_own_ < 0) return;
  timeline_.mutable_spans(open_own_)->set_end_s(Now());
  open_[open_own_] = false;
  open_own_ = -1;
}

int PhaseTimeline::BeginConcurrent(const std::string& phase) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const double now = Now();
  v1::PhaseSpan* span = timeline_.add_spans();
  span->set_phase(phase);
  span->set_start_s(now);
  span->set_end_s(now);
  span->set_concurrent(true);
  open_.push_back(true);
  return timeline_.spans_size() - 1;
}

void PhaseTimeline::EndConcurrent(int handle) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (handle < 0 || handle >= timeline_.spans_size() || !open_[handle] || !timeline_.spans(handle).concurrent()) return;
  timeline_.mutable_spans(handle)->set_end_s(Now());
  open_[handle] = false;
}

v1::Timeline PhaseTimeline::Snapshot() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  v1::Timeline copy = timeline_;
  const double now = Now();
  for (int i = 0; i < copy.spans_size(); ++i)
    if (open_[i]) copy.mutable_spans(i)->set_end_s(now);
  return copy;
}

}  // namespace torchscan
