// The .proto comments state limits and defaults for readers of the schema; they cannot
// include spec_limits.h, so this test reads the .proto files as text and holds them to it:
// each claim below must appear in the comment of its field (the field's line and the comment
// lines right above it), formatted from its constant; and no other "default N" (N not 0: a
// zero field's own value), "at most N", "at least N", "up to N" or "N..M" may appear in a
// comment without a claim that checks it.
#include "proto/spec_limits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace torchscan {
namespace {

struct Claim {
  std::string file;      // under proto/
  std::string anchor;    // text found on exactly one line of the file: the field's declaration
  std::string expected;  // what its comment must say, from a constant
};

std::string Default(double value) { return absl::StrCat("default ", value); }
std::string AtMost(double value) { return absl::StrCat("at most ", value); }

std::vector<Claim> Claims() {
  static_assert(kDefaultMaxUploadBytes % (int64_t{1} << 20) == 0, "stated in MiB below");
  const std::string mib = absl::StrCat("default ", kDefaultMaxUploadBytes >> 20, " MiB");
  return {
      {"service.proto", "double min_run_time_s = 1;", Default(kDefaultMinRunTimeS)},
      {"service.proto", "double min_run_time_s = 1;", AtMost(kMaxRunTimeS)},
      {"service.proto", "int32 min_blocks = 2;", Default(kDefaultMinBlocks)},
      {"service.proto", "int32 instruction_calls = 10;", Default(kDefaultInstructionCalls)},
      {"service.proto", "int32 instruction_calls = 10;", AtMost(kMaxInstructionCalls)},
      {"service.proto", "double max_run_time_s = 3;", AtMost(kMaxRunTimeS)},
      {"service.proto", "int32 intra_op_threads = 4;", AtMost(kMaxThreads)},
      {"service.proto", "int32 inter_op_threads = 5;", AtMost(kMaxThreads)},
      {"service.proto", "int32 profile_calls = 7;", Default(kDefaultProfileCalls)},
      {"service.proto", "int32 rounds = 5;", Default(kDefaultRounds)},
      {"service.proto", "int32 rounds = 5;", AtMost(kMaxRounds)},
      {"service.proto", "double smallest_change = 6;", Default(kDefaultSmallestChange)},
      {"service.proto", "double smallest_change = 6;", AtMost(kMaxSmallestChange)},
      {"service.proto", "double max_time_s = 7;", Default(kDefaultCompareMaxTimeS)},
      {"service.proto", "double max_time_s = 7;", AtMost(kMaxCompareMaxTimeS)},
      {"service.proto", "double max_other_cpu_share = 9;", Default(kDefaultMaxOtherCpuShare)},
      {"service.proto", "message JobSpec {", absl::StrCat("at most ", kMaxJobTextBytes, " bytes")},
      {"service.proto", "int32 max_queue_length = 1;", Default(kDefaultMaxQueueLength)},
      {"service.proto", "double job_wall_time_s = 2;", Default(kDefaultJobWallTimeS)},
      {"service.proto", "int64 worker_memory_bytes = 3;",
       absl::StrCat("default of ", kDefaultWorkerMemoryPercent, " % of the machine's RAM less ",
                    kDaemonMemoryReserveBytes >> 20, " MiB")},
      {"service.proto", "int64 max_upload_bytes = 4;", mib},
      {"service.proto", "int32 worker_open_files = 6;", Default(kDefaultWorkerOpenFiles)},
      {"service.proto", "int32 worker_open_files = 6;", absl::StrCat("at least ", kMinWorkerOpenFiles)},
      {"service.proto", "string socket_mode = 2;", absl::StrCat("default \"", kDefaultSocketMode, "\"")},
      {"service.proto", "int32 default_intra_op_threads = 5;", Default(kDefaultIntraOpThreads)},
      {"service.proto", "int32 default_intra_op_threads = 5;", AtMost(kMaxThreads)},
      {"service.proto", "int32 default_inter_op_threads = 6;", Default(kDefaultInterOpThreads)},
      {"service.proto", "int32 default_inter_op_threads = 6;", AtMost(kMaxThreads)},
      {"service.proto", "int32 pairs = 2;", Default(kDefaultCalibrationPairs)},
      {"service.proto", "int32 pairs = 2;", AtMost(kMaxCalibrationPairs)},
      {"service.proto", "double noise_floor_max_age_s = 16;", Default(kDefaultNoiseFloorMaxAgeS)},
      {"service.proto", "int32 page_size = 3;", Default(kDefaultHistoryPageSize)},
      {"service.proto", "int32 page_size = 3;", AtMost(kMaxHistoryPageSize)},
      {"service.proto", "string worker_user = 14;", absl::StrCat("default \"", kDefaultWorkerUser, "\"")},
      {"workload.proto", "optional double std = 2;", Default(kDefaultNormalStd)},
      {"workload.proto", "optional double high = 2;", Default(kDefaultUniformHigh)},
      {"workload.proto", "map<string, string> input_metadata = 13;",
       absl::StrCat("at most ", kMaxInputMetadataEntries, " entries")},
      {"workload.proto", "map<string, string> input_metadata = 13;", absl::StrCat("1..", kMaxInputMetadataKeyBytes)},
      {"workload.proto", "map<string, string> input_metadata = 13;",
       absl::StrCat("at most ", kMaxInputMetadataValueBytes, " bytes")},
      {"report.proto", "double min_run_time_s = 1;", Default(kDefaultMinRunTimeS)},
      {"report.proto", "int32 min_blocks = 2;", Default(kDefaultMinBlocks)},
  };
}

// The lines of proto/<file>; empty when it cannot be read.
std::vector<std::string> ReadProtoLines(const std::string& file) {
  std::ifstream in("proto/" + file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool IsCommentLine(const std::string& line) {
  const size_t first = line.find_first_not_of(' ');
  return first != std::string::npos && line.compare(first, 2, "//") == 0;
}

// The line holding `anchor` when exactly one does, else -1.
int AnchorLine(const std::vector<std::string>& lines, const std::string& anchor) {
  int found = -1;
  for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
    if (lines[i].find(anchor) == std::string::npos) continue;
    if (found >= 0) return -1;
    found = i;
  }
  return found;
}

TEST(SpecLimits, ProtoCommentsStateTheConstants) {
  const std::vector<std::string> files = {"service.proto", "workload.proto", "report.proto"};
  std::vector<std::vector<std::string>> texts;
  for (const std::string& file : files) {
    texts.push_back(ReadProtoLines(file));
    ASSERT_FALSE(texts.back().empty()) << "proto/" << file << " could not be read (is it in the test's data?)";
  }
  for (const Claim& claim : Claims()) {
    std::vector<std::string>& lines = texts[std::find(files.begin(), files.end(), claim.file) - files.begin()];
    const int last = AnchorLine(lines, claim.anchor);
    ASSERT_GE(last, 0) << "proto/" << claim.file << ": \"" << claim.anchor
                       << "\" is not on exactly one line; update the claim's anchor";
    int first = last;
    while (first > 0 && IsCommentLine(lines[first - 1])) --first;
    bool found = false;
    std::string comment;
    for (int i = first; i <= last && !found; ++i) {
      comment += lines[i] + "\n";
      const size_t at = lines[i].find(claim.expected);
      if (at == std::string::npos) continue;
      // Consumed: the sweep below does not see it again.
      lines[i].replace(at, claim.expected.size(), claim.expected.size(), '#');
      found = true;
    }
    EXPECT_TRUE(found) << "proto/" << claim.file << ": the comment of \"" << claim.anchor << "\" should say \""
                       << claim.expected << "\" (proto/spec_limits.h); it reads:\n"
                       << comment;
  }
  const std::regex stated(R"((default:? "?[0-9][0-9.]*|at most [0-9]+|at least [0-9]+|up to [0-9]+|[0-9]+\.\.[0-9]+))",
                          std::regex::icase);
  const std::regex zero(R"(default:? 0)", std::regex::icase);  // a zero field's own value
  for (size_t f = 0; f < files.size(); ++f) {
    for (size_t i = 0; i < texts[f].size(); ++i) {
      const size_t comment = texts[f][i].find("//");
      if (comment == std::string::npos) continue;
      const std::string words = texts[f][i].substr(comment);
      for (auto it = std::sregex_iterator(words.begin(), words.end(), stated); it != std::sregex_iterator(); ++it) {
        if (std::regex_match(it->str(), zero)) continue;
        ADD_FAILURE() << "proto/" << files[f] << ":" << i + 1 << " states \"" << it->str()
                      << "\", which no constant checks: add its constant to proto/spec_limits.h and a Claim to "
                         "proto/spec_limits_test.cc";
      }
    }
  }
}

}  // namespace
}  // namespace torchscan
