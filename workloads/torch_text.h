// How descriptions and errors name LibTorch values: dtypes as Python spells them, tensors by
// shape and dtype, a call's output by its structure. Never fails: unknown dtypes and value
// kinds fall back to LibTorch's own names.
#pragma once

#include <string>

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include "workloads/call_text.h"

namespace torchscan::workloads {

// "float32", "bfloat16", "int64", "bool", ...; other types as c10::toString names them.
std::string DTypeName(at::ScalarType type);

// "[32, 65] float32" (call_text.h: ShapeText); "undefined tensor" for an undefined one.
std::string TensorText(const at::Tensor& t);

// A call's output: "tensor [32, 1] float32", "tuple(tensor [...] ..., tensor [...] ...)",
// otherwise the value's tag (e.g. "GenericList").
std::string ValueText(const c10::IValue& v);

// `name` with `t`'s dtype and `shape` (which may differ from t's: a per-sample forward's).
TensorSummary Summarize(const std::string& name, const std::vector<int64_t>& shape, const at::Tensor& t);

}  // namespace torchscan::workloads
