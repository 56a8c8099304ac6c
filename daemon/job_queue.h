// The exclusive FIFO of queued job ids: one job runs at a time, in submission order.
// Plain data structure, not thread-safe: the Daemon guards it with its mutex.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace torchscan::daemon {

class JobQueue {
 public:
  // `max_length` >= 1: Push refuses jobs beyond it.
  explicit JobQueue(int max_length);

  // Appends `id`. ResourceExhausted "queue is full: N jobs queued (max_queue_length N); try
  // again later" when at the limit; AlreadyExists when `id` is queued already.
  absl::Status Push(const std::string& id);
  // Appends without the length limit (jobs restored at start-up are never dropped).
  void Restore(const std::string& id);
  // Takes the next job; nullopt when empty.
  std::optional<std::string> Pop();
  // Removes a queued job (cancel); false when it is not queued.
  bool Remove(const std::string& id);
  // 1 for the next job, 2 after it ...; 0 when `id` is not queued.
  int Position(const std::string& id) const;

  size_t size() const { return ids_.size(); }
  bool empty() const { return ids_.empty(); }
  std::vector<std::string> ids() const { return {ids_.begin(), ids_.end()}; }

 private:
  int max_length_;
  std::deque<std::string> ids_;
};

}  // namespace torchscan::daemon
