// Reports and comparisons from JSON: proto/report.proto's messages in the strict JSON mapping
// of io/proto_json.h (snake_case field names, every field printed, NaN/Infinity as the
// strings "NaN"/"Infinity") with a schema_version, parsed, validated (report/validate.h) and
// loaded from files; and a cheap look that tells the kinds of JSON file apart. They are
// written with io/proto_json.h's ToJson / SaveJson.
//
// Loading is strict and all-or-nothing: an unknown field, a wrong type, malformed JSON, a
// missing required part or another schema version gives InvalidArgument whose message names
// the file and the field (e.g. "r.json: before.timing.blocks: missing ..."); the output
// message is left untouched on error. Missing or unreadable files give NotFound /
// PermissionDenied naming the path (io/file_io.h). Nothing here crashes on hostile input.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/report.pb.h"

namespace torchscan::report {

inline constexpr int kReportSchemaVersion = 1;

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

}  // namespace torchscan::report
