#include "daemon/wire_text.h"

#include <climits>
#include <map>
#include <string>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/stubs/common.h>
#include <google/protobuf/wire_format_lite.h>
#include "absl/strings/str_cat.h"
#include "spec/job_spec.h"

namespace torchscan::daemon {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;
using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

std::string Join(const std::string& path, const std::string& name) {
  return path.empty() ? name : absl::StrCat(path, ".", name);
}

// The wire type of `field` when it is not packed.
WireFormatLite::WireType NaturalWireType(const FieldDescriptor& field) {
  return WireFormatLite::WireTypeForFieldType(static_cast<WireFormatLite::FieldType>(field.type()));
}

class WireWalk {
 public:
  WireWalk(google::protobuf::io::ZeroCopyInputStream* wire, const Descriptor& root) : in_(wire), root_(root) {}

  absl::Status Walk(int size) {
    in_.PushLimit(size);
    return Message(root_, "");
  }

 private:
  absl::Status Malformed(const std::string& path, int at, const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(path.empty() ? "request" : path, ": malformed protobuf at byte ", at,
                                                   " of the request (", what, "); send a serialized ",
                                                   root_.full_name()));
  }

  // A length-delimited field's length at `at`, checked against what is left of its message.
  absl::Status Length(const std::string& path, int at, uint32_t* length) {
    if (!ReadShortVarint32(length)) return Malformed(path, at, "a length is cut short or longer than 5 bytes");
    if (*length > static_cast<uint32_t>(in_.BytesUntilLimit()))
      return Malformed(path, at, absl::StrCat("a length of ", *length, " bytes runs past the end of its message"));
    return absl::OkStatus();
  }

  // The fields of a message, up to the current limit. `path` names the message ("" at the top).
  absl::Status Message(const Descriptor& type, const std::string& path) {
    std::map<int, int> elements;  // field number -> elements seen, for the index of repeated fields
    while (in_.BytesUntilLimit() > 0) {
      const int at = in_.CurrentPosition();
      uint32_t tag = 0;
      if (absl::Status s = Tag(path, at, &tag); !s.ok()) return s;
      const FieldDescriptor* field = type.FindFieldByNumber(WireFormatLite::GetTagFieldNumber(tag));
      if (field == nullptr) {
        if (absl::Status s = Skip(path, at, tag); !s.ok()) return s;
        continue;
      }
      std::string field_path = Join(path, field->name());
      if (field->is_repeated() && !field->is_map()) absl::StrAppend(&field_path, "[", elements[field->number()]++, "]");
      if (absl::Status s = Field(*field, tag, field_path, path, at, "is"); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // One map entry of the map at `map_path`: its key names its value in the value's path.
  absl::Status MapEntry(const Descriptor& entry, const std::string& map_path) {
    std::string value_path = absl::StrCat(map_path, "[?]");  // a value sent before its key
    while (in_.BytesUntilLimit() > 0) {
      const int at = in_.CurrentPosition();
      uint32_t tag = 0;
      if (absl::Status s = Tag(map_path, at, &tag); !s.ok()) return s;
      const FieldDescriptor* field = entry.FindFieldByNumber(WireFormatLite::GetTagFieldNumber(tag));
      std::string key;
      absl::Status s = field == nullptr           ? Skip(map_path, at, tag)
                       : field == entry.map_key() ? Field(*field, tag, map_path, map_path, at, "a key is", &key)
                                                  : Field(*field, tag, value_path, map_path, at, "is");
      if (!s.ok()) return s;
      if (field == entry.map_key() && field->type() == FieldDescriptor::TYPE_STRING)
        value_path = absl::StrCat(map_path, "[", spec::QuoteForMessage(key), "]");
    }
    return absl::OkStatus();
  }

  // protobuf's parser (parse_context.h ReadTag, ReadSize) reads a tag or a length of at most 5
  // bytes and refuses a longer varint, where CodedInputStream::ReadVarint32 reads up to 10 and
  // drops the high bits: so the walk reads them here, the parser's way (a longer one was passed
  // by the walk and refused by the parser, found by tests/fuzz:wire_request_fuzzer).
  bool ReadShortVarint32(uint32_t* value) {
    const int before = in_.CurrentPosition();
    return in_.ReadVarint32(value) && in_.CurrentPosition() - before <= 5;
  }

  absl::Status Tag(const std::string& path, int at, uint32_t* tag) {
    if (!ReadShortVarint32(tag) || *tag == 0)
      return Malformed(path, at, "a field tag is cut short, zero or longer than 5 bytes");
    if (WireFormatLite::GetTagFieldNumber(*tag) == 0) return Malformed(path, at, "field number 0");
    return absl::OkStatus();
  }

  // A field the message does not know, or a known one sent with another wire type (which the
  // parser keeps as an unknown field too).
  absl::Status Skip(const std::string& path, int at, uint32_t tag) {
    if (SkipValue(tag)) return absl::OkStatus();
    return Malformed(path, at,
                     absl::StrCat("field ", WireFormatLite::GetTagFieldNumber(tag), " with wire type ",
                                  WireFormatLite::GetTagWireType(tag), " is cut short or invalid"));
  }

  // The value after `tag`, skipped as the parser reads it (WireFormatLite::SkipField reads tags
  // and lengths as CodedInputStream does). Groups count toward the nesting limit of messages.
  bool SkipValue(uint32_t tag) {
    uint64_t varint = 0;
    uint32_t length = 0;
    switch (WireFormatLite::GetTagWireType(tag)) {
      case WireFormatLite::WIRETYPE_VARINT: return in_.ReadVarint64(&varint);
      case WireFormatLite::WIRETYPE_FIXED64: return in_.Skip(8);
      case WireFormatLite::WIRETYPE_FIXED32: return in_.Skip(4);
      case WireFormatLite::WIRETYPE_LENGTH_DELIMITED:
        return ReadShortVarint32(&length) && length <= static_cast<uint32_t>(in_.BytesUntilLimit()) &&
               in_.Skip(static_cast<int>(length));
      case WireFormatLite::WIRETYPE_START_GROUP: {
        if (!in_.IncrementRecursionDepth()) return false;
        bool ok = true;
        for (uint32_t inner = 0; ok;) {
          ok = ReadShortVarint32(&inner) && WireFormatLite::GetTagFieldNumber(inner) != 0;
          if (ok && WireFormatLite::GetTagWireType(inner) == WireFormatLite::WIRETYPE_END_GROUP) {
            ok = WireFormatLite::GetTagFieldNumber(inner) == WireFormatLite::GetTagFieldNumber(tag);
            break;
          }
          ok = ok && SkipValue(inner);
        }
        in_.DecrementRecursionDepth();
        return ok;
      }
      default: return false;  // an end-group tag outside its group, wire types 6 and 7
    }
  }

  // Known `field` of the message at `message_path`, its tag at `at`; its own path `path`.
  // `subject` starts the UTF-8 complaint ("is", "a key is"); a string's text goes to `text`.
  absl::Status Field(const FieldDescriptor& field, uint32_t tag, const std::string& path,
                     const std::string& message_path, int at, const char* subject, std::string* text = nullptr) {
    const WireFormatLite::WireType wire = WireFormatLite::GetTagWireType(tag);
    const bool length_delimited = wire == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
    if (wire != NaturalWireType(field)) {
      if (length_delimited && field.is_packable()) return Packed(field, message_path, at);
      return Skip(message_path, at, tag);
    }
    if (field.type() == FieldDescriptor::TYPE_STRING) return Text(field, path, message_path, at, subject, text);
    if (field.type() == FieldDescriptor::TYPE_MESSAGE) return Nested(field, path, message_path, at);
    return Skip(message_path, at, tag);  // numbers, bools, enums, bytes: any value parses
  }

  absl::Status Text(const FieldDescriptor& field, const std::string& path, const std::string& message_path, int at,
                    const char* subject, std::string* out) {
    uint32_t length = 0;
    if (absl::Status s = Length(message_path, at, &length); !s.ok()) return s;
    std::string text;
    if (!in_.ReadString(&text, static_cast<int>(length))) return Malformed(message_path, at, "a string is cut short");
    // The parser's own rule (proto3 only: proto2 strings are not checked).
    if (field.file()->syntax() == FileDescriptor::SYNTAX_PROTO3 &&
        !google::protobuf::internal::IsStructurallyValidUTF8(text.data(), static_cast<int>(text.size())))
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", subject, " not UTF-8 (", text.size(),
                       " bytes); text fields hold UTF-8 text (protobuf strings): send it encoded as UTF-8"));
    if (out != nullptr) *out = std::move(text);
    return absl::OkStatus();
  }

  absl::Status Nested(const FieldDescriptor& field, const std::string& path, const std::string& message_path, int at) {
    uint32_t length = 0;
    if (absl::Status s = Length(message_path, at, &length); !s.ok()) return s;
    if (!in_.IncrementRecursionDepth()) return Malformed(path, at, "messages nested more than 100 deep");
    const CodedInputStream::Limit limit = in_.PushLimit(static_cast<int>(length));
    const absl::Status s =
        field.is_map() ? MapEntry(*field.message_type(), path) : Message(*field.message_type(), path);
    in_.PopLimit(limit);
    in_.DecrementRecursionDepth();
    return s;
  }

  // A packed repeated number: whole varints, or a whole number of fixed-width values.
  absl::Status Packed(const FieldDescriptor& field, const std::string& message_path, int at) {
    uint32_t length = 0;
    if (absl::Status s = Length(message_path, at, &length); !s.ok()) return s;
    const CodedInputStream::Limit limit = in_.PushLimit(static_cast<int>(length));
    absl::Status s;
    switch (NaturalWireType(field)) {
      case WireFormatLite::WIRETYPE_FIXED32:
      case WireFormatLite::WIRETYPE_FIXED64: {
        const uint32_t width = NaturalWireType(field) == WireFormatLite::WIRETYPE_FIXED32 ? 4 : 8;
        if (length % width != 0)
          s = Malformed(message_path, at,
                        absl::StrCat("packed ", field.name(), " of ", length,
                                     " bytes is not a whole "
                                     "number of ",
                                     width, "-byte values"));
        else in_.Skip(static_cast<int>(length));
        break;
      }
      default:
        while (s.ok() && in_.BytesUntilLimit() > 0) {
          uint64_t value = 0;
          if (!in_.ReadVarint64(&value))
            s = Malformed(message_path, at, absl::StrCat("packed ", field.name(), " is cut short"));
        }
    }
    in_.PopLimit(limit);
    return s;
  }

  CodedInputStream in_;
  const Descriptor& root_;
};

}  // namespace

absl::Status CheckWireText(const Descriptor& type, google::protobuf::io::ZeroCopyInputStream* wire, int64_t size) {
  if (size < 0 || size >= INT_MAX)
    return absl::InvalidArgumentError(absl::StrCat("request: ", size, " bytes; a protobuf message is under 2 GiB"));
  return WireWalk(wire, type).Walk(static_cast<int>(size));
}

}  // namespace torchscan::daemon
