#include "report/report_json.h"

#include <cctype>

#include "io/file_io.h"
#include "io/proto_json.h"
#include "report/validate.h"

namespace torchscan::report {
namespace {

// Prefixes the message with the file (or other source) it came from.
absl::Status InSource(const std::string& source, const absl::Status& status) {
  return absl::Status(status.code(), source + ": " + std::string(status.message()));
}

template <typename T>
absl::StatusOr<T> Parse(std::string_view json, const std::string& source, absl::Status (*validate)(const T&, int)) {
  T message;
  if (absl::Status s = ParseJsonStrict(json, source, &message); !s.ok()) return s;
  if (absl::Status s = validate(message, kReportSchemaVersion); !s.ok()) return InSource(source, s);
  return message;
}

absl::Status ValidateTopLevelReport(const v1::BenchmarkReport& r, int version) { return ValidateReport(r, version); }

// Whether the JSON object `json` has the key `key` at its top level. One linear pass with no
// recursion and no allocation, so that hostile nesting costs nothing; malformed JSON gives an
// answer the strict parse then corrects.
bool HasTopLevelKey(std::string_view json, std::string_view key) {
  int depth = 0;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == '"') {
      const size_t start = i + 1;
      for (++i; i < json.size() && json[i] != '"'; ++i)
        if (json[i] == '\\') ++i;
      if (depth != 1 || json.substr(start, i - start) != key) continue;
      size_t next = i + 1;
      while (next < json.size() && std::isspace(static_cast<unsigned char>(json[next]))) ++next;
      if (next < json.size() && json[next] == ':') return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<v1::BenchmarkReport> ParseReport(std::string_view json, const std::string& source) {
  return Parse<v1::BenchmarkReport>(json, source, &ValidateTopLevelReport);
}

absl::StatusOr<v1::Comparison> ParseComparison(std::string_view json, const std::string& source) {
  return Parse<v1::Comparison>(json, source, &ValidateComparison);
}

absl::StatusOr<v1::BenchmarkReport> LoadReport(const std::string& path) {
  absl::StatusOr<std::string> json = ReadFile(path);
  if (!json.ok()) return json.status();
  return ParseReport(*json, path);
}

absl::StatusOr<v1::Comparison> LoadComparison(const std::string& path) {
  absl::StatusOr<std::string> json = ReadFile(path);
  if (!json.ok()) return json.status();
  return ParseComparison(*json, path);
}

absl::StatusOr<Evidence> ParseEvidence(std::string_view json, const std::string& source) {
  // Both messages reject each other's top-level keys, so a cheap look at the keys is
  // enough to pick one; the strict parse below still decides.
  if (HasTopLevelKey(json, "before")) {
    absl::StatusOr<v1::Comparison> c = ParseComparison(json, source);
    if (!c.ok()) return c.status();
    return Evidence(std::move(*c));
  }
  absl::StatusOr<v1::BenchmarkReport> r = ParseReport(json, source);
  if (!r.ok()) return r.status();
  return Evidence(std::move(*r));
}

absl::StatusOr<Evidence> LoadEvidence(const std::string& path) {
  absl::StatusOr<std::string> json = ReadFile(path);
  if (!json.ok()) return json.status();
  return ParseEvidence(*json, path);
}

JsonKind SniffJsonKind(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return JsonKind::kNotJson;
  if (HasTopLevelKey(text, "before") || HasTopLevelKey(text, "latency_change")) return JsonKind::kComparison;
  if (HasTopLevelKey(text, "measure") || HasTopLevelKey(text, "compare")) return JsonKind::kJob;
  return JsonKind::kReport;
}

}  // namespace torchscan::report
