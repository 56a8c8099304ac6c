// Field-by-field differences between two messages of the same type, by reflection, so the
// comparison rules never hand-list fields that the schema already lists.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <google/protobuf/message.h>

namespace torchscan {

struct FieldDifference {
  std::string field;   // dotted path from the prefix, e.g. "settings.threads.intra_op"
  std::string before;  // the value as text; "(absent)" for an unset optional or map key
  std::string after;
};

// Appends one FieldDifference per leaf that differs between `a` and `b` (same type).
// Singular messages recurse; map<string, string> fields compare key by key
// ("<field>.<key>"); other repeated fields compare as a whole. Fields named in `skip`
// (their full dotted path) are ignored. Unset optional scalars are "(absent)".
void DiffMessages(const google::protobuf::Message& a, const google::protobuf::Message& b, const std::string& prefix,
                  const std::vector<std::string>& skip, std::vector<FieldDifference>* out);

// Appends "<path>.<key>" for each key whose value differs or that only one map has.
void DiffStringMaps(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b,
                    const std::string& path, std::vector<FieldDifference>* out);

}  // namespace torchscan
