// The structure of a compiled model's outputs, as torch.utils._pytree writes it into an
// AOTInductor package's call spec (treespec_dumps, protocol 1):
//   [1, {"type": "builtins.dict", "context": "[\"logits\", \"hidden\"]", "children_spec": [...]}]
// with leaves {"type": null, "context": null, "children_spec": []}. The package's runner
// returns the leaves flat, in order; this says how to put them back. Pure, no LibTorch.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace torchscan::workloads {

struct TreeSpec {
  enum class Kind { kLeaf, kTuple, kList, kDict };
  Kind kind = Kind::kLeaf;
  std::vector<std::string> keys;  // kDict: one per child, in order
  std::vector<TreeSpec> children;

  int LeafCount() const;
  // "tensor", "tuple of 2", "dict (logits, hidden)": for a workload's description.
  std::string Text() const;
};

// Parses a treespec. Types other than tuple, list and dict (a namedtuple, a dataclass) read as
// tuples of their children; a dict's keys must be strings. InvalidArgument naming what is
// wrong for anything else (not JSON, another protocol, a dict with other keys).
absl::StatusOr<TreeSpec> ParseTreeSpec(absl::string_view json);

}  // namespace torchscan::workloads
