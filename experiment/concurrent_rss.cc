#include "experiment/concurrent_rss.h"

#include <memory>
#include <system_error>
#include <utility>

namespace torchscan::experiment {

ConcurrentRss::ConcurrentRss(std::vector<Trial> trials, const std::string& child_path,
                             const passes::RssTrialOptions& options, PhaseTimeline& timeline,
                             const std::function<void(const std::string&)>& on_begin,
                             std::vector<passes::RssTrial> waiting) {
  passes::RssTrialOptions shared = options;
  shared.cancel = &cancel_;
  for (Trial& trial : trials) {
    auto run = std::make_unique<Running>();
    const std::string phase = "rss " + trial.name;
    run->span = timeline.BeginConcurrent(phase);
    if (on_begin) on_begin(phase);
    Running* r = run.get();
    // Forked here, on the caller's thread (passes/peak_rss.h says why), unless a waiting child
    // takes the trial; the thread only waits.
    std::shared_ptr<passes::RssTrial> trial_ptr;
    if (!waiting.empty()) {
      trial_ptr = std::make_shared<passes::RssTrial>(std::move(waiting.front()));
      waiting.erase(waiting.begin());
      trial_ptr->Start(trial.spec, shared);
    } else {
      trial_ptr = std::make_shared<passes::RssTrial>(passes::RssTrial::Launch(trial.spec, child_path, shared));
    }
    auto await = [r, &timeline, trial_ptr] {
      r->metric = trial_ptr->Await();
      timeline.EndConcurrent(r->span);
    };
    try {
      r->thread = std::thread(await);
    } catch (const std::system_error&) {
      await();  // no thread to be had: this trial is waited for here, alone
    }
    running_.push_back(std::move(run));
  }
}

std::vector<v1::MetricResult> ConcurrentRss::Join() {
  std::vector<v1::MetricResult> metrics;
  if (joined_) return metrics;
  joined_ = true;
  for (const std::unique_ptr<Running>& r : running_) {
    if (r->thread.joinable()) r->thread.join();
    metrics.push_back(std::move(r->metric));
  }
  return metrics;
}

ConcurrentRss::~ConcurrentRss() {
  cancel_ = true;
  for (const std::unique_ptr<Running>& r : running_)
    if (r->thread.joinable()) r->thread.join();
}

}  // namespace torchscan::experiment
