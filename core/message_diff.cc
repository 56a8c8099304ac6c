#include "core/message_diff.h"

#include <algorithm>
#include <map>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/text_format.h>

namespace torchscan {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

constexpr const char* kAbsent = "(absent)";

std::string FieldText(const Message& m, const FieldDescriptor* f) {
  const Reflection* r = m.GetReflection();
  if (f->has_presence() && !f->is_repeated() && !r->HasField(m, f)) return kAbsent;
  std::string text;
  if (f->is_repeated()) {
    const int n = r->FieldSize(m, f);
    text = "[";
    for (int i = 0; i < n; ++i) {
      std::string item;
      google::protobuf::TextFormat::PrintFieldValueToString(m, f, i, &item);
      text += (i ? ", " : "") + item;
    }
    return text + "]";
  }
  google::protobuf::TextFormat::PrintFieldValueToString(m, f, -1, &text);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  return text;
}

bool IsStringMap(const FieldDescriptor* f) {
  if (!f->is_map()) return false;
  const auto* entry = f->message_type();
  return entry->map_key()->type() == FieldDescriptor::TYPE_STRING &&
         entry->map_value()->type() == FieldDescriptor::TYPE_STRING;
}

std::map<std::string, std::string> StringMap(const Message& m, const FieldDescriptor* f) {
  std::map<std::string, std::string> out;
  const Reflection* r = m.GetReflection();
  const auto* entry = f->message_type();
  for (int i = 0; i < r->FieldSize(m, f); ++i) {
    const Message& e = r->GetRepeatedMessage(m, f, i);
    out[e.GetReflection()->GetString(e, entry->map_key())] = e.GetReflection()->GetString(e, entry->map_value());
  }
  return out;
}

}  // namespace

void DiffStringMaps(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b,
                    const std::string& path, std::vector<FieldDifference>* out) {
  std::map<std::string, std::pair<std::string, std::string>> merged;
  for (const auto& [k, v] : a) merged[k] = {v, kAbsent};
  for (const auto& [k, v] : b) {
    auto it = merged.find(k);
    if (it == merged.end()) merged[k] = {kAbsent, v};
    else it->second.second = v;
  }
  for (const auto& [k, values] : merged)
    if (values.first != values.second) out->push_back({path + "." + k, values.first, values.second});
}

void DiffMessages(const Message& a, const Message& b, const std::string& prefix, const std::vector<std::string>& skip,
                  std::vector<FieldDifference>* out) {
  const auto* descriptor = a.GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* f = descriptor->field(i);
    const std::string path = prefix.empty() ? f->name() : prefix + "." + f->name();
    if (std::find(skip.begin(), skip.end(), path) != skip.end()) continue;
    if (IsStringMap(f)) {
      DiffStringMaps(StringMap(a, f), StringMap(b, f), path, out);
    } else if (f->type() == FieldDescriptor::TYPE_MESSAGE && !f->is_repeated()) {
      DiffMessages(a.GetReflection()->GetMessage(a, f), b.GetReflection()->GetMessage(b, f), path, skip, out);
    } else {
      std::string before = FieldText(a, f), after = FieldText(b, f);
      if (before != after) out->push_back({path, std::move(before), std::move(after)});
    }
  }
}

}  // namespace torchscan
