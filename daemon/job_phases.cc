#include "daemon/job_phases.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace torchscan::daemon {

JobPhases::JobPhases(Clock* clock, std::string started_at) : timeline_(clock, std::move(started_at)) {}

void JobPhases::Begin(const std::string& phase) {
  if (absl::StartsWith(phase, "rss ")) {
    open_rss_.push_back(timeline_.BeginConcurrent(phase));
    return;
  }
  if (waiting_for_rss_ || absl::StartsWith(phase, "warm-up ") || absl::StartsWith(phase, "timing ")) EndRss();
  waiting_for_rss_ = phase == "wait for rss";
  timeline_.Begin(phase);
}

void JobPhases::RssChildrenStarted(int count) {
  if (count > 0)
    open_rss_.push_back(timeline_.BeginConcurrent(absl::StrCat("rss children (", count, " started with the worker)")));
}

void JobPhases::End() {
  EndRss();
  timeline_.End();
}

void JobPhases::EndRss() {
  for (int handle : open_rss_) timeline_.EndConcurrent(handle);
  open_rss_.clear();
}

}  // namespace torchscan::daemon
