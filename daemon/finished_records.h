// The finished job records the daemon keeps parsed in memory: at most `capacity`, the most
// recently used. The others stay only on disk (their job.json) and are read again when asked
// for (JobRecords::Find), so that the daemon's memory stays flat however many jobs it has run.
// A finished record no longer changes (restart_rules.h), so one read again equals the one
// dropped. gRPC-free; not thread-safe (JobRecords holds its lock around every call).
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <string>

#include "proto/service.pb.h"

namespace torchscan::daemon {

// The default capacity: a page of history (100) and a `jobs list` of the newest 200 are
// answered from memory; about 1.5 MiB of records.
inline constexpr size_t kKeptFinishedRecords = 300;

class FinishedRecords {
 public:
  using Node = std::map<std::string, v1::Job>::node_type;

  // At least one record is kept.
  explicit FinishedRecords(size_t capacity = kKeptFinishedRecords) : capacity_(capacity > 0 ? capacity : 1) {}

  // The kept record of job `id`, now the most recently used; nullptr when it is not kept.
  v1::Job* Get(const std::string& id);
  // Keeps a record (replacing a kept one of its id) as the most recently used and drops the
  // least recently used beyond the capacity. The node's record keeps its address (a record
  // moved here from another std::map stays where a caller's reference points) until it is
  // dropped, which takes `capacity` more records used after it. Returns the kept record.
  v1::Job* Keep(Node node);
  v1::Job* Keep(v1::Job job);

  size_t size() const { return records_.size(); }
  size_t capacity() const { return capacity_; }

 private:
  // Makes job `id`'s entry the most recently used.
  void Touch(const std::string& id);

  const size_t capacity_;
  std::map<std::string, v1::Job> records_;                          // by id; node-based: addresses stay
  std::list<std::string> order_;                                    // ids, most recently used first
  std::map<std::string, std::list<std::string>::iterator> places_;  // each id's place in order_
};

}  // namespace torchscan::daemon
