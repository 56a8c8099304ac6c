#include "daemon/job_queue.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"

namespace torchscan::daemon {

JobQueue::JobQueue(int max_length, int max_per_user) : max_length_(max_length), max_per_user_(max_per_user) {}

const std::string& JobQueue::NextUser(const Waiting& waiting, const std::map<std::string, uint64_t>& last_served) {
  const std::string* next = nullptr;
  std::tuple<uint64_t, uint64_t> best;
  for (const auto& [user, queued] : waiting) {
    const auto served = last_served.find(user);
    const std::tuple<uint64_t, uint64_t> key{served == last_served.end() ? 0 : served->second, queued.front().seq};
    if (next == nullptr || key < best) {
      next = &user;
      best = key;
    }
  }
  return *next;
}

absl::Status JobQueue::Add(const std::string& id, const std::string& user) {
  if (user_of_.count(id) != 0) return absl::AlreadyExistsError(absl::StrCat("job ", id, " is already queued"));
  waiting_[user].push_back(Queued{next_seq_++, id});
  user_of_[id] = user;
  return absl::OkStatus();
}

absl::Status JobQueue::Push(const std::string& id, const std::string& user) {
  if (user_of_.count(id) != 0) return absl::AlreadyExistsError(absl::StrCat("job ", id, " is already queued"));
  if (static_cast<int64_t>(size()) >= max_length_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("queue is full: ", size(), " jobs queued (max_queue_length ", max_length_, "); try again later"));
  }
  const auto own = waiting_.find(user);
  const size_t held = own == waiting_.end() ? 0 : own->second.size();
  if (static_cast<int64_t>(held) >= max_per_user_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "queue: ", user, " has ", held, " jobs queued, the most one user may (max_queued_per_user ", max_per_user_,
        "), so that others' jobs find room; submit again once one of yours has started, or ask the daemon's admin "
        "to raise it (torchscand --max-queued-per-user N)"));
  }
  return Add(id, user);
}

void JobQueue::Restore(const std::string& id, const std::string& user) { (void)Add(id, user); }

std::string JobQueue::TakeNext(Waiting& waiting, std::map<std::string, uint64_t>& last_served, uint64_t& served) {
  const std::string user = NextUser(waiting, last_served);
  std::deque<Queued>& queued = waiting[user];
  std::string id = std::move(queued.front().id);
  queued.pop_front();
  if (queued.empty()) waiting.erase(user);
  last_served[user] = ++served;
  return id;
}

std::optional<std::string> JobQueue::Pop() {
  if (waiting_.empty()) return std::nullopt;
  std::string id = TakeNext(waiting_, last_served_, served_);
  user_of_.erase(id);
  return id;
}

bool JobQueue::Take(const std::string& id) {
  const auto found = user_of_.find(id);
  if (found == user_of_.end()) return false;
  last_served_[found->second] = ++served_;
  return Remove(id);
}

bool JobQueue::Remove(const std::string& id) {
  const auto found = user_of_.find(id);
  if (found == user_of_.end()) return false;
  std::deque<Queued>& queued = waiting_[found->second];
  queued.erase(std::find_if(queued.begin(), queued.end(), [&](const Queued& q) { return q.id == id; }));
  if (queued.empty()) waiting_.erase(found->second);
  user_of_.erase(found);
  return true;
}

std::vector<std::string> JobQueue::ids() const {
  std::vector<std::string> order;
  Waiting waiting = waiting_;
  std::map<std::string, uint64_t> last_served = last_served_;
  uint64_t served = served_;
  while (!waiting.empty()) order.push_back(TakeNext(waiting, last_served, served));
  return order;
}

int JobQueue::Position(const std::string& id) const {
  if (user_of_.count(id) == 0) return 0;
  const std::vector<std::string> order = ids();
  return static_cast<int>(std::find(order.begin(), order.end(), id) - order.begin()) + 1;
}

}  // namespace torchscan::daemon
