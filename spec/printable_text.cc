#include "spec/printable_text.h"

#include <optional>
#include <vector>

#include <google/protobuf/stubs/common.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace torchscan::spec {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

struct ControlCharacter {
  unsigned code_point;
  size_t byte;
};

// The first Unicode control character of UTF-8 `text`: C0 and DEL are single bytes, C1 is
// 0xC2 followed by 0x80-0x9F (0xC2 is never a continuation byte).
std::optional<ControlCharacter> FirstControlCharacter(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7F) return ControlCharacter{byte, i};
    if (byte == 0xC2 && i + 1 < text.size()) {
      const auto next = static_cast<unsigned char>(text[i + 1]);
      if (next >= 0x80 && next <= 0x9F) return ControlCharacter{next, i};
    }
  }
  return std::nullopt;
}

absl::Status CheckText(const std::string& path, const std::string& what, const std::string& text) {
  if (text.size() > kMaxJobTextBytes)
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s %d bytes, more than the %d a text field of a job may hold: shorten it (put long notes in a file "
        "next to the report)",
        path, what, text.size(), kMaxJobTextBytes));
  const std::optional<ControlCharacter> c = FirstControlCharacter(text);
  if (!c) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrFormat("%s: %s control character U+%04X at byte %d; text fields of a job are printable text on one line "
                      "(no tab, newline, NUL or escape sequences): remove it",
                      path, what, c->code_point, c->byte));
}

std::string Join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : absl::StrCat(prefix, ".", name);
}

// A map key inside a field path: C-escaped and cut, as keys may be long.
std::string KeyInPath(const std::string& key) {
  constexpr size_t kShown = 32;
  if (key.size() <= kShown) return absl::StrCat("[\"", absl::CHexEscape(key), "\"]");
  return absl::StrCat("[\"", absl::CHexEscape(key.substr(0, kShown)), "...\"]");
}

absl::Status CheckMessage(const Message& message, const std::string& path);

// Element `index` of `field` (or the field itself when index < 0), at `path`.
absl::Status CheckValue(const Message& message, const FieldDescriptor* field, int index, const std::string& path) {
  const Reflection* r = message.GetReflection();
  if (field->type() == FieldDescriptor::TYPE_STRING) {
    std::string scratch;
    const std::string& text = index < 0 ? r->GetStringReference(message, field, &scratch)
                                        : r->GetRepeatedStringReference(message, field, index, &scratch);
    return CheckText(path, "holds", text);
  }
  if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
    return CheckMessage(index < 0 ? r->GetMessage(message, field) : r->GetRepeatedMessage(message, field, index), path);
  return absl::OkStatus();
}

absl::Status CheckMapEntry(const Message& entry, const std::string& path) {
  const Reflection* r = entry.GetReflection();
  const FieldDescriptor* key = entry.GetDescriptor()->map_key();
  const FieldDescriptor* value = entry.GetDescriptor()->map_value();
  if (key->type() != FieldDescriptor::TYPE_STRING) return CheckValue(entry, value, -1, path);
  const std::string& text = r->GetString(entry, key);
  if (absl::Status s = CheckText(path, "a key holds", text); !s.ok()) return s;
  return CheckValue(entry, value, -1, path + KeyInPath(text));
}

absl::Status CheckMessage(const Message& message, const std::string& path) {
  const Reflection* r = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    const std::string field_path = Join(path, field->name());
    if (!field->is_repeated()) {
      if (absl::Status s = CheckValue(message, field, -1, field_path); !s.ok()) return s;
      continue;
    }
    for (int i = 0; i < r->FieldSize(message, field); ++i) {
      const absl::Status s = field->is_map() ? CheckMapEntry(r->GetRepeatedMessage(message, field, i), field_path)
                                             : CheckValue(message, field, i, absl::StrCat(field_path, "[", i, "]"));
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

// The length of the UTF-8 sequence at text[i] (1-4) by protobuf's rule, the one a record's
// string fields must meet, or 0 when the bytes there start none.
size_t Utf8SequenceAt(std::string_view text, size_t i) {
  for (size_t n = 1; n <= 4 && i + n <= text.size(); ++n)
    if (google::protobuf::internal::IsStructurallyValidUTF8(text.data() + i, static_cast<int>(n))) return n;
  return 0;
}

}  // namespace

std::string PrintableLine(std::string_view text, size_t max_bytes) {
  std::string out;
  size_t cut = std::string::npos;  // where "..." goes if the text runs past max_bytes
  for (size_t i = 0; i < text.size();) {
    const size_t n = Utf8SequenceAt(text, i);
    const auto byte = static_cast<unsigned char>(text[i]);
    std::string piece;
    if (n == 0 || byte < 0x20 || byte == 0x7F) {
      piece = absl::StrFormat("\\x%02X", byte);
    } else if (n == 2 && byte == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      piece = absl::StrFormat("\\u%04X", static_cast<unsigned char>(text[i + 1]));
    } else {
      piece = std::string(text.substr(i, n));
    }
    i += n == 0 ? 1 : n;
    if (cut == std::string::npos && out.size() + piece.size() > max_bytes - 3) cut = out.size();
    if (out.size() + piece.size() > max_bytes) return out.substr(0, cut) + "...";
    out += piece;
  }
  return out;
}

absl::Status RequirePrintableText(const Message& message, const std::string& prefix) {
  return CheckMessage(message, prefix);
}

}  // namespace torchscan::spec
