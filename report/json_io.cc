#include "report/json_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "io/nearest_name.h"
#include "report/validate.h"

namespace torchscan {
namespace {

// Prefixes the message with the file (or other source) it came from.
absl::Status InSource(const std::string& source, const absl::Status& status) {
  return absl::Status(status.code(), source + ": " + std::string(status.message()));
}

template <typename T>
absl::StatusOr<T> Parse(std::string_view json, const std::string& source,
                        absl::Status (*validate)(const T&, int)) {
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

// Replaces every -0.0 in the double and float fields of `message` (nested messages, repeated
// fields and map values included) with +0.0. See ParseJsonStrict in the header for why.
void ClearNegativeZeros(google::protobuf::Message* message) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection* r = message->GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(*message, &fields);
  const auto negative_zero = [](double v) { return v == 0 && std::signbit(v); };
  for (const FieldDescriptor* f : fields) {
    // A map of strings (most of them) holds no number: leave its entries alone.
    if (f->is_map() && f->message_type()->map_value()->cpp_type() == FieldDescriptor::CPPTYPE_STRING) continue;
    const bool repeated = f->is_repeated();
    for (int i = 0; i < (repeated ? r->FieldSize(*message, f) : 1); ++i) {
      switch (f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_DOUBLE:
          if (negative_zero(repeated ? r->GetRepeatedDouble(*message, f, i) : r->GetDouble(*message, f)))
            repeated ? r->SetRepeatedDouble(message, f, i, 0.0) : r->SetDouble(message, f, 0.0);
          break;
        case FieldDescriptor::CPPTYPE_FLOAT:
          if (negative_zero(repeated ? r->GetRepeatedFloat(*message, f, i) : r->GetFloat(*message, f)))
            repeated ? r->SetRepeatedFloat(message, f, i, 0.0f) : r->SetFloat(message, f, 0.0f);
          break;
        case FieldDescriptor::CPPTYPE_MESSAGE:
          ClearNegativeZeros(repeated ? r->MutableRepeatedMessage(message, f, i) : r->MutableMessage(message, f));
          break;
        default:
          break;
      }
    }
  }
}

// A field of `message` by its proto name or its JSON (camelCase) name; null when none.
const google::protobuf::FieldDescriptor* FindField(const google::protobuf::Descriptor* message, const std::string& name) {
  const google::protobuf::FieldDescriptor* field = message->FindFieldByName(name);
  return field != nullptr ? field : message->FindFieldByCamelcaseName(name);
}

// The parser says "(options) minRunTime: Cannot find field." (the path in parentheses, absent
// at the top level) and no more. This names the message that lacks the field, the nearest
// valid name and every valid name: "options.minRunTime: MeasurementOptions has no field
// \"minRunTime\"; did you mean min_run_time_s? Its fields: ...". "" when the parser's words
// are not about an unknown field or the path cannot be followed.
std::string UnknownFieldHelp(const google::protobuf::Descriptor* root, std::string_view parser_message) {
  constexpr std::string_view kSuffix = ": Cannot find field.";
  if (parser_message.size() <= kSuffix.size() ||
      parser_message.substr(parser_message.size() - kSuffix.size()) != kSuffix)
    return "";
  std::string_view rest = parser_message.substr(0, parser_message.size() - kSuffix.size());
  std::string_view path;
  if (!rest.empty() && rest[0] == '(') {
    const size_t close = rest.find(") ");
    if (close == std::string_view::npos) return "";
    path = rest.substr(1, close - 1);
    rest = rest.substr(close + 2);
  }
  const std::string unknown(rest);
  const google::protobuf::Descriptor* message = root;
  std::string shown_path;
  bool in_map_value = false;  // a map of messages shows as "field[0].value" on the way
  for (absl::string_view segment : absl::StrSplit(absl::string_view(path.data(), path.size()), '.', absl::SkipEmpty())) {
    const std::string name(segment.substr(0, segment.find('[')));
    if (in_map_value && name == "value") {
      in_map_value = false;
      continue;
    }
    const google::protobuf::FieldDescriptor* field = FindField(message, name);
    if (field == nullptr || field->message_type() == nullptr) return "";
    message = field->message_type();
    if (field->is_map()) {
      message = message->map_value()->message_type();
      if (message == nullptr) return "";
      in_map_value = true;
    }
    shown_path += name + ".";
  }
  std::vector<std::string> names;
  for (int i = 0; i < message->field_count(); ++i) names.push_back(message->field(i)->name());
  const std::string nearest = NearestName(unknown, names);
  return shown_path + unknown + ": " + message->name() + " has no field \"" + unknown + "\"" +
         (nearest.empty() ? "" : "; did you mean " + nearest + "?") + " Its fields: " + absl::StrJoin(names, ", ");
}

absl::Status ErrnoStatus(const std::string& what, const std::string& path) {
  const int e = errno;
  const std::string message = what + " " + path + ": " + std::strerror(e);
  if (e == ENOENT) return absl::NotFoundError(message);
  if (e == EACCES || e == EPERM) return absl::PermissionDeniedError(message);
  return absl::InternalError(message);
}

}  // namespace

absl::Status ParseJsonStrict(std::string_view json, const std::string& source, google::protobuf::Message* out) {
  std::unique_ptr<google::protobuf::Message> parsed(out->New());
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), parsed.get(), options);
  if (!status.ok()) {
    const std::string help = UnknownFieldHelp(out->GetDescriptor(), {status.message().data(), status.message().size()});
    return absl::InvalidArgumentError(source + ": not a valid " + out->GetDescriptor()->name() + " JSON file: " +
                                      (help.empty() ? std::string(status.message()) : help));
  }
  ClearNegativeZeros(parsed.get());
  out->GetReflection()->Swap(out, parsed.get());
  return absl::OkStatus();
}

absl::Status LoadJsonStrict(const std::string& path, google::protobuf::Message* out) {
  absl::StatusOr<std::string> json = ReadFile(path);
  if (!json.ok()) return json.status();
  return ParseJsonStrict(*json, path, out);
}

std::string ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  options.always_print_enums_as_ints = false;
  // The printer writes -0.0 as "-0", which the parser reads as 0: print zeros as 0.
  std::unique_ptr<google::protobuf::Message> copy(message.New());
  copy->CopyFrom(message);
  ClearNegativeZeros(copy.get());
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(*copy, &out, options);
  return out;
}

absl::Status SaveJson(const google::protobuf::Message& message, const std::string& path) {
  return WriteFileAtomic(path, ToJson(message));
}

absl::Status WriteFileAtomic(const std::string& path, const std::string& json) {
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("cannot create", temporary);
  size_t written = 0;
  while (written < json.size()) {
    const ssize_t n = ::write(fd, json.data() + written, json.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status s = ErrnoStatus("cannot write", temporary);
      ::close(fd);
      ::unlink(temporary.c_str());
      return s;
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    absl::Status s = ErrnoStatus("cannot flush", temporary);
    ::unlink(temporary.c_str());
    return s;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    absl::Status s = ErrnoStatus("cannot rename into", path);
    ::unlink(temporary.c_str());
    return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open", path);
  struct stat info;
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(path + " is a folder; give a file");
  }
  const auto too_large = [&] {
    return absl::InvalidArgumentError(path + " is larger than " + std::to_string(kMaxReadFileBytes) +
                                      " bytes; TorchScan does not read files that large");
  };
  if (S_ISREG(info.st_mode) && info.st_size > kMaxReadFileBytes) {
    ::close(fd);
    return too_large();
  }
  // Streams (pipes, devices such as /dev/zero) have no size: read up to the limit.
  std::string content;
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status s = ErrnoStatus("cannot read", path);
      ::close(fd);
      return s;
    }
    if (static_cast<int64_t>(content.size()) + n > kMaxReadFileBytes) {
      ::close(fd);
      return too_large();
    }
    content.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return content;
}

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

}  // namespace torchscan
