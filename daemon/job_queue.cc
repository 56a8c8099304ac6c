#include "daemon/job_queue.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace torchscan::daemon {

JobQueue::JobQueue(int max_length) : max_length_(max_length) {}

absl::Status JobQueue::Push(const std::string& id) {
  if (Position(id) != 0) return absl::AlreadyExistsError(absl::StrCat("job ", id, " is already queued"));
  if (static_cast<int64_t>(ids_.size()) >= max_length_) {
    return absl::ResourceExhaustedError(absl::StrCat("queue is full: ", ids_.size(), " jobs queued (max_queue_length ",
                                                     max_length_, "); try again later"));
  }
  ids_.push_back(id);
  return absl::OkStatus();
}

void JobQueue::Restore(const std::string& id) {
  if (Position(id) == 0) ids_.push_back(id);
}

std::optional<std::string> JobQueue::Pop() {
  if (ids_.empty()) return std::nullopt;
  std::string id = std::move(ids_.front());
  ids_.pop_front();
  return id;
}

bool JobQueue::Remove(const std::string& id) {
  auto it = std::find(ids_.begin(), ids_.end(), id);
  if (it == ids_.end()) return false;
  ids_.erase(it);
  return true;
}

int JobQueue::Position(const std::string& id) const {
  auto it = std::find(ids_.begin(), ids_.end(), id);
  return it == ids_.end() ? 0 : static_cast<int>(it - ids_.begin()) + 1;
}

}  // namespace torchscan::daemon
