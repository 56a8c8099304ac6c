#include "workloads/torch_text.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace torchscan::workloads {

std::string DTypeName(at::ScalarType type) {
  switch (type) {
    case at::kFloat: return "float32";
    case at::kDouble: return "float64";
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kLong: return "int64";
    case at::kInt: return "int32";
    case at::kShort: return "int16";
    case at::kChar: return "int8";
    case at::kByte: return "uint8";
    case at::kBool: return "bool";
    default: return c10::toString(type);
  }
}

std::string TensorText(const at::Tensor& t) {
  if (!t.defined()) return "undefined tensor";
  return ShapeText(t.sizes().vec(), DTypeName(t.scalar_type()));
}

std::string ValueText(const c10::IValue& v) {
  if (v.isTensor()) return absl::StrCat("tensor ", TensorText(v.toTensor()));
  if (v.isTuple()) {
    std::vector<std::string> parts;
    for (const auto& e : v.toTuple()->elements()) parts.push_back(ValueText(e));
    return absl::StrCat("tuple(", absl::StrJoin(parts, ", "), ")");
  }
  return v.tagKind();
}

TensorSummary Summarize(const std::string& name, const std::vector<int64_t>& shape, const at::Tensor& t) {
  return {name, shape, DTypeName(t.scalar_type())};
}

}  // namespace torchscan::workloads
