// The jobs waiting for the machine, fair between users: each user's
// jobs run in their submission order, and users take turns, the one served longest ago first
// (never served: first of all; ties: whose job waits longest), so one user's burst holds
// another user's job back by at most one job per user waiting. A user holds at most
// `max_per_user` queued jobs and the queue at most `max_length`. Plain data structure, not
// thread-safe: the Daemon guards it with its mutex.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace torchscan::daemon {

class JobQueue {
 public:
  // `max_length` >= 1: Push refuses jobs beyond it; `max_per_user` >= 1: Push refuses a
  // user's jobs beyond it.
  JobQueue(int max_length, int max_per_user);

  // Queues `id`, submitted by `user`. ResourceExhausted "queue is full: N jobs queued
  // (max_queue_length N); try again later" at the queue's limit, or "queue: USER has N jobs
  // queued, the most one user may (max_queued_per_user N); ..." at the user's; AlreadyExists
  // when `id` is queued already.
  absl::Status Push(const std::string& id, const std::string& user);
  // Queues without the limits (jobs restored at start-up are never dropped).
  void Restore(const std::string& id, const std::string& user);
  // Takes the next job (see above); nullopt when empty.
  std::optional<std::string> Pop();
  // Takes `id` out of the queue to run it now, out of turn (a scheduler's choice: one whose
  // turn came but who must wait for a device lets those behind it pass), and marks its user
  // served as Pop does; false when it is not queued.
  bool Take(const std::string& id);
  // Removes a queued job (cancel); false when it is not queued.
  bool Remove(const std::string& id);
  // 1 for the next job, 2 after it ...; 0 when `id` is not queued. A later submission by a
  // user served less recently may move a job back.
  int Position(const std::string& id) const;

  size_t size() const { return user_of_.size(); }
  bool empty() const { return user_of_.empty(); }
  // The queued jobs in the order they would run if no other came.
  std::vector<std::string> ids() const;

 private:
  struct Queued {
    uint64_t seq;  // submission order
    std::string id;
  };
  using Waiting = std::map<std::string, std::deque<Queued>>;  // by user, in submission order

  // The user whose job runs next in `waiting` (not empty), given when each was last served.
  static const std::string& NextUser(const Waiting& waiting, const std::map<std::string, uint64_t>& last_served);
  // Takes the next job out of `waiting` and marks its user served (the `served`-th pop).
  static std::string TakeNext(Waiting& waiting, std::map<std::string, uint64_t>& last_served, uint64_t& served);
  absl::Status Add(const std::string& id, const std::string& user);

  int max_length_;
  int max_per_user_;
  Waiting waiting_;
  std::map<std::string, std::string> user_of_;   // queued id -> its user
  std::map<std::string, uint64_t> last_served_;  // user -> when last served (Pop count)
  uint64_t next_seq_ = 0, served_ = 0;
};

}  // namespace torchscan::daemon
