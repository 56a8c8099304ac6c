// <state_dir>/jobs.cache: a speed-up of JobStore::LoadAll, never a source of truth. It holds
// finished job records in binary protobuf, each with the identity of the job.json it stands
// for (inode, size, mtime and ctime in nanoseconds), so that a start takes a record whose
// job.json is unchanged from the cache instead of parsing its JSON (about 0.3 ms a record; a
// state folder of 10,000 jobs took seconds). Any change to a job.json (a daemon's atomic
// rewrite makes a new inode; an edit in place changes ctime) makes its entry stale, and the
// JSON is parsed again. job.json stays the record users and tools read.
//
// Layout: the magic line "torchscan jobs.cache 1\n", then fixed 64-bit little-endian words:
// the schema fingerprint (a hash of proto/service.proto's descriptor: a cache written by a
// daemon built from another schema is ignored), the entry count and an FNV-1a checksum of
// everything after it; then per entry: varint id length, id, varint inode, size, mtime_ns,
// ctime_ns, varint Job length, Job bytes.
//
// DecodeJobCache is all-or-nothing: a wrong magic, a wrong checksum, a short or over-long
// file give DataLoss saying which (FailedPrecondition for another schema), and no entry is
// used. The file is written atomically (io/file_io.h), so kill -9 during a write leaves the
// old cache or the new one whole.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "io/fnv1a.h"  // Fnv1a64: the checksum above

namespace torchscan::daemon {

inline constexpr char kJobCacheFile[] = "jobs.cache";

// Identity of a job.json as stat(2) gives it; equal identities mean the same content (the
// store writes records only by atomic rename, which makes a new inode; a write in place
// changes ctime, which no program can set back).
struct RecordIdentity {
  uint64_t inode = 0;
  int64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  bool operator==(const RecordIdentity& other) const {
    return inode == other.inode && size == other.size && mtime_ns == other.mtime_ns && ctime_ns == other.ctime_ns;
  }
};

// stat(2) of `path`; nullopt when it fails (a missing file).
std::optional<RecordIdentity> IdentityOf(const std::string& path);

struct CachedRecord {
  RecordIdentity identity;  // of its job.json when the record was read or written
  std::string job;          // the v1::Job, binary protobuf
};

// Where an entry's Job bytes lie in the cache file, so that one record can be read again
// alone (JobStore::LoadJob) without keeping the cache in memory.
struct CacheSpan {
  RecordIdentity identity;  // the entry's
  uint64_t offset = 0;      // from the file's first byte
  uint32_t size = 0;
};

// The cache file's bytes for `records` (by job id); `spans`, when given, gets each entry's.
std::string EncodeJobCache(const std::map<std::string, CachedRecord>& records,
                           std::map<std::string, CacheSpan>* spans = nullptr);

// The records of a cache file's bytes; errors above. `spans`, when given, gets each entry's
// (on success only: the whole file is checked first).
absl::StatusOr<std::map<std::string, CachedRecord>> DecodeJobCache(const std::string& bytes,
                                                                   std::map<std::string, CacheSpan>* spans = nullptr);

}  // namespace torchscan::daemon
