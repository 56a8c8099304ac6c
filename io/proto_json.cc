#include "io/proto_json.h"

#include <cmath>
#include <memory>
#include <vector>

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "io/file_io.h"
#include "io/nearest_name.h"

namespace torchscan {
namespace {

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
        default: break;
      }
    }
  }
}

// A field of `message` by its proto name or its JSON (camelCase) name; null when none.
const google::protobuf::FieldDescriptor* FindField(const google::protobuf::Descriptor* message,
                                                   const std::string& name) {
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
  for (absl::string_view segment :
       absl::StrSplit(absl::string_view(path.data(), path.size()), '.', absl::SkipEmpty())) {
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

}  // namespace

absl::Status ParseJsonStrict(std::string_view json, const std::string& source, google::protobuf::Message* out) {
  std::unique_ptr<google::protobuf::Message> parsed(out->New());
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), parsed.get(), options);
  if (!status.ok()) {
    const std::string help = UnknownFieldHelp(out->GetDescriptor(), {status.message().data(), status.message().size()});
    return absl::InvalidArgumentError(source + ": not a valid " + out->GetDescriptor()->name() +
                                      " JSON file: " + (help.empty() ? std::string(status.message()) : help));
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

absl::Status SaveJson(const google::protobuf::Message& message, const std::string& path, int mode) {
  return WriteFileAtomic(path, ToJson(message), mode);
}

}  // namespace torchscan
