// JobStore's record cache (job_store.h, daemon/job_cache.h): reading jobs.cache at a load,
// rewriting it with the records stored since, and reading one record again from it.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include "daemon/job_store.h"
#include "daemon/restart_rules.h"
#include "io/file_io.h"

namespace torchscan::daemon {
namespace {

namespace fs = std::filesystem;

constexpr int kPrivateFileMode = 0600;  // as every file of the state folder (job_store.cc)

// The job's binary protobuf, deterministic (the same message gives the same bytes).
std::string Serialized(const v1::Job& job) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    job.SerializeToCodedStream(&out);
  }
  return bytes;
}

}  // namespace

std::map<std::string, CachedRecord> JobStore::ReadCache(Loaded& loaded, bool* stale) {
  std::error_code error;
  if (!fs::exists(CachePath(), error)) return {};
  absl::StatusOr<std::string> bytes = ReadFile(CachePath());
  std::map<std::string, CacheSpan> spans;
  absl::StatusOr<std::map<std::string, CachedRecord>> decoded =
      bytes.ok() ? DecodeJobCache(*bytes, &spans) : absl::StatusOr<std::map<std::string, CachedRecord>>(bytes.status());
  if (decoded.ok()) {
    UseCacheFile(std::move(spans));
    return *std::move(decoded);
  }
  *stale = true;
  if (!bytes.ok())
    loaded.problems.push_back(absl::StrCat(bytes.status().message(), "; the cache is ignored and written again"));
  else if (decoded.status().code() != absl::StatusCode::kFailedPrecondition)  // another schema: not a problem
    loaded.problems.push_back(
        absl::StrCat(CachePath(), ": ", decoded.status().message(), "; the cache is ignored and written again"));
  return {};
}

absl::Status JobStore::SaveCache() {
  if (!loaded_) return absl::OkStatus();
  std::map<std::string, CachedRecord> records;
  {
    std::lock_guard<std::mutex> lock(remembered_mu_);
    // Nothing stored since the last write: that cache is still right for every entry it has.
    if (!remembered_since_save_) return absl::OkStatus();
    records.swap(pending_);
  }
  // The old cache's entries go on where no newer record replaced them; a damaged or missing
  // cache gives none (those records are parsed at the next start: time only).
  std::error_code error;
  if (fs::exists(CachePath(), error)) {
    absl::StatusOr<std::string> bytes = ReadFile(CachePath());
    absl::StatusOr<std::map<std::string, CachedRecord>> old =
        bytes.ok() ? DecodeJobCache(*bytes) : absl::StatusOr<std::map<std::string, CachedRecord>>(bytes.status());
    if (old.ok()) records.merge(*old);  // an id already pending keeps its newer record
  }
  {
    std::lock_guard<std::mutex> lock(remembered_mu_);
    // Only entries that are what the job.json holds now (one stored again meanwhile is pending).
    for (auto it = records.begin(); it != records.end();) {
      const auto current = remembered_.find(it->first);
      it =
          current == remembered_.end() || !(current->second == it->second.identity) ? records.erase(it) : std::next(it);
    }
  }
  std::map<std::string, CacheSpan> spans;
  absl::Status written = WriteFileAtomic(CachePath(), EncodeJobCache(records, &spans), kPrivateFileMode);
  if (written.ok()) UseCacheFile(std::move(spans));
  std::lock_guard<std::mutex> lock(remembered_mu_);
  if (written.ok()) {
    remembered_since_save_ = !pending_.empty();
  } else {
    pending_.merge(records);  // written with the next cache (those cached before included)
  }
  return written;
}

absl::Status JobStore::SaveCacheOf(const std::vector<v1::Job>& jobs) {
  std::map<std::string, CachedRecord> records;
  {
    std::lock_guard<std::mutex> lock(remembered_mu_);
    for (const v1::Job& job : jobs) {
      const auto it = remembered_.find(job.id());
      if (it != remembered_.end() && IsFinished(job.state()))
        records.emplace(job.id(), CachedRecord{it->second, Serialized(job)});
    }
  }
  std::map<std::string, CacheSpan> spans;
  absl::Status written = WriteFileAtomic(CachePath(), EncodeJobCache(records, &spans), kPrivateFileMode);
  if (written.ok()) {
    UseCacheFile(std::move(spans));
    std::lock_guard<std::mutex> lock(remembered_mu_);
    pending_.clear();
    remembered_since_save_ = false;
  }
  return written;
}

void JobStore::Remember(const v1::Job& job, const RecordIdentity& identity, bool stored_now) {
  std::string bytes = stored_now ? Serialized(job) : std::string();
  std::lock_guard<std::mutex> lock(remembered_mu_);
  remembered_[job.id()] = identity;
  if (stored_now) {
    pending_[job.id()] = CachedRecord{identity, std::move(bytes)};
    remembered_since_save_ = true;
  }
}

std::string JobStore::CachePath() const { return (fs::path(state_dir_) / kJobCacheFile).string(); }

void JobStore::UseCacheFile(std::map<std::string, CacheSpan> spans) {
  const int fd = ::open(CachePath().c_str(), O_RDONLY | O_CLOEXEC);
  std::lock_guard<std::mutex> lock(remembered_mu_);
  if (cache_fd_ >= 0) ::close(cache_fd_);
  cache_fd_ = fd;
  cache_spans_ = fd >= 0 ? std::move(spans) : std::map<std::string, CacheSpan>();
}

bool JobStore::ReadFromCacheFile(const std::string& id, v1::Job* job) const {
  std::lock_guard<std::mutex> lock(remembered_mu_);
  const auto span = cache_spans_.find(id);
  const auto current = remembered_.find(id);
  if (cache_fd_ < 0 || span == cache_spans_.end() || current == remembered_.end() ||
      !(span->second.identity == current->second))
    return false;  // not cached, or its job.json changed since
  std::string bytes(span->second.size, '\0');
  const ssize_t got = ::pread(cache_fd_, bytes.data(), bytes.size(), static_cast<off_t>(span->second.offset));
  return got == static_cast<ssize_t>(bytes.size()) && job->ParseFromString(bytes) && job->id() == id;
}

}  // namespace torchscan::daemon
