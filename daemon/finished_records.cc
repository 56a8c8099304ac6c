#include "daemon/finished_records.h"

#include <utility>

namespace torchscan::daemon {

void FinishedRecords::Touch(const std::string& id) {
  auto place = places_.find(id);
  if (place != places_.end()) {
    order_.splice(order_.begin(), order_, place->second);
    return;
  }
  order_.push_front(id);
  places_.emplace(id, order_.begin());
}

v1::Job* FinishedRecords::Get(const std::string& id) {
  auto it = records_.find(id);
  if (it == records_.end()) return nullptr;
  Touch(id);
  return &it->second;
}

v1::Job* FinishedRecords::Keep(Node node) {
  const std::string id = node.key();
  records_.erase(id);
  v1::Job* kept = &records_.insert(std::move(node)).position->second;
  Touch(id);
  while (records_.size() > capacity_ && !order_.empty()) {
    const std::string& oldest = order_.back();
    records_.erase(oldest);
    places_.erase(oldest);
    order_.pop_back();
  }
  return kept;
}

v1::Job* FinishedRecords::Keep(v1::Job job) {
  std::map<std::string, v1::Job> one;
  const std::string id = job.id();
  one.emplace(id, std::move(job));
  return Keep(one.extract(id));
}

}  // namespace torchscan::daemon
