#include "workloads/tree_spec.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace torchscan::workloads {
namespace {

using google::protobuf::Value;

absl::Status Bad(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("the package's output spec ", what));
}

absl::StatusOr<Value> ParseJson(absl::string_view json) {
  Value value;
  if (!google::protobuf::util::JsonStringToMessage(std::string(json), &value).ok())
    return Bad(absl::StrCat("is not JSON: ", json.substr(0, 200)));
  return value;
}

absl::StatusOr<TreeSpec> Node(const Value& node) {
  if (node.kind_case() != Value::kStructValue) return Bad("has a node that is not an object");
  const auto& fields = node.struct_value().fields();
  const auto type = fields.find("type");
  const auto children = fields.find("children_spec");
  TreeSpec spec;
  if (type == fields.end() || type->second.kind_case() != Value::kStringValue) {
    if (children != fields.end() && children->second.list_value().values_size() > 0)
      return Bad("has an untyped node with children");
    return spec;  // a leaf
  }
  const std::string& name = type->second.string_value();
  spec.kind = name == "builtins.dict"   ? TreeSpec::Kind::kDict
              : name == "builtins.list" ? TreeSpec::Kind::kList
                                        : TreeSpec::Kind::kTuple;
  if (children != fields.end())
    for (const Value& child : children->second.list_value().values()) {
      absl::StatusOr<TreeSpec> parsed = Node(child);
      if (!parsed.ok()) return parsed.status();
      spec.children.push_back(*std::move(parsed));
    }
  if (spec.kind != TreeSpec::Kind::kDict) return spec;
  // A dict's context is its keys, as JSON in a string.
  const auto context = fields.find("context");
  if (context == fields.end() || context->second.kind_case() != Value::kStringValue)
    return Bad("has a dict without its keys");
  absl::StatusOr<Value> keys = ParseJson(context->second.string_value());
  if (!keys.ok()) return keys.status();
  for (const Value& key : keys->list_value().values()) {
    if (key.kind_case() != Value::kStringValue) return Bad("has a dict whose keys are not strings");
    spec.keys.push_back(key.string_value());
  }
  if (spec.keys.size() != spec.children.size()) return Bad("has a dict with more keys than values, or fewer");
  return spec;
}

}  // namespace

int TreeSpec::LeafCount() const {
  if (kind == Kind::kLeaf) return 1;
  int n = 0;
  for (const TreeSpec& child : children) n += child.LeafCount();
  return n;
}

std::string TreeSpec::Text() const {
  switch (kind) {
    case Kind::kLeaf: return "tensor";
    case Kind::kDict: return absl::StrCat("dict (", absl::StrJoin(keys, ", "), ")");
    case Kind::kList: return absl::StrCat("list of ", children.size());
    case Kind::kTuple: return absl::StrCat("tuple of ", children.size());
  }
  return "tensor";
}

absl::StatusOr<TreeSpec> ParseTreeSpec(absl::string_view json) {
  absl::StatusOr<Value> value = ParseJson(json);
  if (!value.ok()) return value.status();
  const auto& items = value->list_value().values();
  if (value->kind_case() != Value::kListValue || items.size() != 2 || items[0].number_value() != 1)
    return Bad("is not [1, {...}] (protocol 1 of torch.utils._pytree)");
  return Node(items[1]);
}

}  // namespace torchscan::workloads
