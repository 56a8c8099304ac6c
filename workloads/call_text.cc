#include "workloads/call_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace torchscan::workloads {

std::string ShapeText(const std::vector<int64_t>& shape, const std::string& dtype) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "] ", dtype);
}

std::string InputsText(const std::vector<TensorSummary>& inputs, const std::string& device) {
  std::vector<std::string> parts;
  for (const TensorSummary& t : inputs) parts.push_back(absl::StrCat(t.name, " ", ShapeText(t.shape, t.dtype)));
  return absl::StrCat(absl::StrJoin(parts, ", "), " on ", device);
}

std::string CallText(const std::string& method, const std::vector<TensorSummary>& forward_inputs,
                     const std::string& device) {
  std::vector<std::string> arguments;
  for (const TensorSummary& t : forward_inputs) {
    arguments.push_back(absl::StrCat(t.name, ": Tensor", ShapeText(t.shape, t.dtype)));
  }
  return absl::StrCat(method, "(", absl::StrJoin(arguments, ", "), ") on ", device);
}

}  // namespace torchscan::workloads
