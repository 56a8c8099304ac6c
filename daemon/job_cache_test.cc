#include "daemon/job_cache.h"

#include <gtest/gtest.h>

#include <string>

#include "proto/service.pb.h"

namespace torchscan::daemon {
namespace {

std::map<std::string, CachedRecord> TwoRecords() {
  std::map<std::string, CachedRecord> records;
  for (int i = 1; i <= 2; ++i) {
    v1::Job job;
    job.set_id("job-00000" + std::to_string(i));
    job.set_state(v1::Job::succeeded);
    job.mutable_spec()->set_label("label " + std::to_string(i));
    records[job.id()] =
        CachedRecord{RecordIdentity{uint64_t(100 + i), 2000 + i, 1700000000123456789 + i, 1700000000987654321 + i},
                     job.SerializeAsString()};
  }
  return records;
}

TEST(JobCache, RecordsRoundTrip) {
  const std::map<std::string, CachedRecord> records = TwoRecords();
  absl::StatusOr<std::map<std::string, CachedRecord>> decoded = DecodeJobCache(EncodeJobCache(records));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->size(), 2u);
  for (const auto& [id, record] : records) {
    ASSERT_EQ(decoded->count(id), 1u);
    EXPECT_TRUE(decoded->at(id).identity == record.identity);
    EXPECT_EQ(decoded->at(id).job, record.job);
  }
  EXPECT_TRUE(DecodeJobCache(EncodeJobCache({})).ok());
}

TEST(JobCache, DamagedOrTruncatedFilesAreRefusedWhole) {
  const std::string bytes = EncodeJobCache(TwoRecords());
  for (size_t cut : {size_t{0}, size_t{10}, size_t{40}, bytes.size() / 2, bytes.size() - 1}) {
    const absl::StatusOr<std::map<std::string, CachedRecord>> decoded = DecodeJobCache(bytes.substr(0, cut));
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss) << "cut at " << cut;
  }
  std::string flipped = bytes;
  flipped[bytes.size() - 3] ^= 0x20;  // inside the last record's Job bytes
  EXPECT_EQ(DecodeJobCache(flipped).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(DecodeJobCache(flipped).status().message().find("checksum"), std::string::npos);
  EXPECT_EQ(DecodeJobCache(bytes + "x").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeJobCache("{\"jobs\": []}").status().code(), absl::StatusCode::kDataLoss);
}

TEST(JobCache, AnotherSchemaIsRefusedAsSuch) {
  std::string bytes = EncodeJobCache(TwoRecords());
  bytes[std::string("torchscan jobs.cache 1\n").size()] ^= 1;  // the schema fingerprint's first byte
  EXPECT_EQ(DecodeJobCache(bytes).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(JobCache, IdentityOfAMissingFileIsNone) {
  EXPECT_FALSE(IdentityOf("/nonexistent/job.json").has_value());
  EXPECT_TRUE(IdentityOf("/").has_value());
}

}  // namespace
}  // namespace torchscan::daemon
