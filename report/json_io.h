// JSON save/load of reports and comparisons: the protobuf JSON mapping of proto/report.proto
// with snake_case field names, every field printed (zeros included), NaN/Infinity written
// as the strings "NaN"/"Infinity", and a schema_version.
//
// Loading is strict and all-or-nothing: an unknown field, a wrong type, malformed JSON, a
// missing required part or another schema version gives InvalidArgument whose message names
// the file and the field (e.g. "r.json: before.timing.blocks: missing ..."); the output
// message is left untouched on error. Missing or unreadable files give NotFound /
// PermissionDenied naming the path. Nothing here crashes on hostile input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/report.pb.h"

namespace torchscan {

inline constexpr int kReportSchemaVersion = 1;

// Pretty JSON (2-space indent) of a report or comparison. A negative zero is written as 0
// (see ParseJsonStrict), so ParseJsonStrict(ToJson(m)) gives back every message m that
// ParseJsonStrict produced, bit for bit.
std::string ToJson(const google::protobuf::Message& message);

// Writes `text` to `path` atomically (temporary file beside it, fsync, rename): readers see
// the old file or the new one, never half of one; on error the old file is kept. NotFound /
// PermissionDenied / Internal naming the path.
absl::Status WriteFileAtomic(const std::string& path, const std::string& text);

// WriteFileAtomic(path, ToJson(message)).
absl::Status SaveJson(const google::protobuf::Message& message, const std::string& path);

// Strict JSON mapping parse of any message (job files, daemon configuration, job records):
// unknown fields, wrong types and malformed JSON give InvalidArgument "<source>: not a valid
// <Type> JSON file: <the parser's words, which name the field>". An unknown field is named
// with its path, the message that lacks it, the nearest valid name and all valid names:
// "job.json: not a valid JobSpec JSON file: options.minRunTime: MeasurementOptions has no
// field "minRunTime"; did you mean min_run_time_s? Its fields: intra_op_threads, ...".
// All or nothing: `out` is left untouched on error.
// Every zero is read as +0 in double and float fields: -0, -0.0 and -0e15 are the number
// zero (a tolerance, a time), and the protobuf parser alone keeps the sign of some of these
// spellings and not of others. Strings are kept byte for byte (JSON escapes such as \u0000
// included); which text a job may hold is report/printable_text.h's rule, not the loader's.
absl::Status ParseJsonStrict(std::string_view json, const std::string& source, google::protobuf::Message* out);

// ReadFile + ParseJsonStrict with the path as the source.
absl::Status LoadJsonStrict(const std::string& path, google::protobuf::Message* out);

// Parses and validates. `source` names the input in errors (a path, or "<stdin>").
absl::StatusOr<v1::BenchmarkReport> ParseReport(std::string_view json, const std::string& source);
absl::StatusOr<v1::Comparison> ParseComparison(std::string_view json, const std::string& source);

absl::StatusOr<v1::BenchmarkReport> LoadReport(const std::string& path);
absl::StatusOr<v1::Comparison> LoadComparison(const std::string& path);

// A file holding either kind: a top-level "before" key means a comparison.
using Evidence = std::variant<v1::BenchmarkReport, v1::Comparison>;
absl::StatusOr<Evidence> ParseEvidence(std::string_view json, const std::string& source);
absl::StatusOr<Evidence> LoadEvidence(const std::string& path);

// What a file seems to hold, from a cheap look (one linear pass; the strict parse still
// decides), so that a command given the wrong kind of file can say which command fits:
// kNotJson when the first non-blank byte is not '{' (a zip archive such as a saved module,
// an HTML page ...), kComparison with a top-level "before" or "latency_change" key, kJob with a top-level
// "measure" or "compare" key (a JobSpec), else kReport.
enum class JsonKind { kNotJson, kReport, kComparison, kJob };
JsonKind SniffJsonKind(std::string_view text);

// Reads a whole file; NotFound / PermissionDenied / Internal naming the path; InvalidArgument
// naming the path for a folder or for more than kMaxReadFileBytes (endless streams such as
// /dev/zero are refused by size, not read forever).
inline constexpr int64_t kMaxReadFileBytes = int64_t{256} << 20;
absl::StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace torchscan
