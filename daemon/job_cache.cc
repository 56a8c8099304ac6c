#include "daemon/job_cache.h"

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <sys/stat.h>

#include <climits>
#include <cstring>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {
namespace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

constexpr std::string_view kMagic = "torchscan jobs.cache 1\n";
constexpr size_t kHeaderSize = kMagic.size() + 3 * sizeof(uint64_t);

// A hash of the descriptor of the file that defines v1::Job: changes with any field of it.
uint64_t SchemaFingerprint() {
  static const uint64_t fingerprint = [] {
    google::protobuf::FileDescriptorProto file;
    v1::Job::descriptor()->file()->CopyTo(&file);
    return Fnv1a64(file.SerializeAsString());
  }();
  return fingerprint;
}

uint64_t LoadWord(const std::string& bytes, size_t at) {
  uint64_t word = 0;
  for (int i = 7; i >= 0; --i) word = (word << 8) | static_cast<unsigned char>(bytes[at + i]);
  return word;
}

void AppendWord(std::string& out, uint64_t word) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((word >> (8 * i)) & 0xff));
}

}  // namespace

std::optional<RecordIdentity> IdentityOf(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  RecordIdentity identity;
  identity.inode = st.st_ino;
  identity.size = st.st_size;
  identity.mtime_ns = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  identity.ctime_ns = int64_t{st.st_ctim.tv_sec} * 1000000000 + st.st_ctim.tv_nsec;
  return identity;
}

std::string EncodeJobCache(const std::map<std::string, CachedRecord>& records,
                           std::map<std::string, CacheSpan>* spans) {
  std::string body;
  {
    google::protobuf::io::StringOutputStream stream(&body);
    CodedOutputStream out(&stream);
    for (const auto& [id, record] : records) {
      out.WriteVarint32(static_cast<uint32_t>(id.size()));
      out.WriteString(id);
      out.WriteVarint64(record.identity.inode);
      out.WriteVarint64(static_cast<uint64_t>(record.identity.size));
      out.WriteVarint64(static_cast<uint64_t>(record.identity.mtime_ns));
      out.WriteVarint64(static_cast<uint64_t>(record.identity.ctime_ns));
      out.WriteVarint32(static_cast<uint32_t>(record.job.size()));
      if (spans != nullptr)
        (*spans)[id] = CacheSpan{record.identity, kHeaderSize + static_cast<uint64_t>(out.ByteCount()),
                                 static_cast<uint32_t>(record.job.size())};
      out.WriteString(record.job);
    }
  }
  std::string file(kMagic);
  AppendWord(file, SchemaFingerprint());
  AppendWord(file, records.size());
  AppendWord(file, Fnv1a64(body));
  return file + body;
}

absl::StatusOr<std::map<std::string, CachedRecord>> DecodeJobCache(const std::string& bytes,
                                                                   std::map<std::string, CacheSpan>* spans) {
  if (bytes.size() < kHeaderSize || bytes.compare(0, kMagic.size(), kMagic) != 0)
    return absl::DataLossError(
        "not a jobs.cache file (its first line is not "
        "\"torchscan jobs.cache 1\")");
  if (LoadWord(bytes, kMagic.size()) != SchemaFingerprint())
    return absl::FailedPreconditionError("written by a daemon with another record schema");
  const uint64_t count = LoadWord(bytes, kMagic.size() + 8);
  const std::string_view body = std::string_view(bytes).substr(kHeaderSize);  // no copy of the cache
  if (LoadWord(bytes, kMagic.size() + 16) != Fnv1a64(body))
    return absl::DataLossError("its checksum does not match its content (truncated or damaged)");
  std::map<std::string, CachedRecord> records;
  std::map<std::string, CacheSpan> found;
  CodedInputStream in(reinterpret_cast<const uint8_t*>(body.data()), static_cast<int>(body.size()));
  in.SetTotalBytesLimit(INT32_MAX);
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t id_size = 0, job_size = 0;
    uint64_t size = 0, mtime = 0, ctime = 0;
    std::string id;
    CachedRecord record;
    if (!in.ReadVarint32(&id_size) || !in.ReadString(&id, static_cast<int>(id_size)) ||
        !in.ReadVarint64(&record.identity.inode) || !in.ReadVarint64(&size) || !in.ReadVarint64(&mtime) ||
        !in.ReadVarint64(&ctime) || !in.ReadVarint32(&job_size))
      return absl::DataLossError(absl::StrCat("entry ", i + 1, " of ", count, " is cut short"));
    const uint64_t job_at = kHeaderSize + static_cast<uint64_t>(in.CurrentPosition());
    if (!in.ReadString(&record.job, static_cast<int>(job_size)))
      return absl::DataLossError(absl::StrCat("entry ", i + 1, " of ", count, " is cut short"));
    record.identity.size = static_cast<int64_t>(size);
    record.identity.mtime_ns = static_cast<int64_t>(mtime);
    record.identity.ctime_ns = static_cast<int64_t>(ctime);
    found[id] = CacheSpan{record.identity, job_at, job_size};
    records.emplace(std::move(id), std::move(record));
  }
  if (in.CurrentPosition() != static_cast<int>(body.size()))
    return absl::DataLossError(absl::StrCat("bytes follow its ", count, " entries"));
  if (spans != nullptr) *spans = std::move(found);
  return records;
}

}  // namespace torchscan::daemon
