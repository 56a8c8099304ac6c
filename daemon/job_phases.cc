#include "daemon/job_phases.h"

#include <utility>

#include "worker/worker_protocol.h"

namespace torchscan::daemon {

JobPhases::JobPhases(Clock* clock, std::string started_at) : timeline_(clock, std::move(started_at)) {}

bool JobPhases::Begin(const std::string& phase) {
  if (begun_ >= kMaxJobPhases) return false;
  ++begun_;
  const worker::PhaseKind kind = worker::ClassifyPhase(phase);
  if (kind == worker::PhaseKind::kConcurrent) {
    open_concurrent_.push_back(timeline_.BeginConcurrent(phase));
    return true;
  }
  if (after_join_ || kind == worker::PhaseKind::kTimed) EndConcurrent();
  after_join_ = kind == worker::PhaseKind::kJoin;
  timeline_.Begin(phase);
  return true;
}

void JobPhases::EarlyChildrenStarted(int count) {
  if (count > 0) open_concurrent_.push_back(timeline_.BeginConcurrent(worker::EarlyChildrenSpan(count)));
}

void JobPhases::End() {
  EndConcurrent();
  timeline_.End();
}

void JobPhases::EndConcurrent() {
  for (int handle : open_concurrent_) timeline_.EndConcurrent(handle);
  open_concurrent_.clear();
}

}  // namespace torchscan::daemon
