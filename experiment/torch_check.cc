#include "experiment/torch_check.h"

#include <optional>
#include <sstream>
#include <stdexcept>

#include <torch/torch.h>

#include "core/output_check.h"

namespace torchscan::experiment {
namespace {

std::string Shape(const at::Tensor& t) {
  std::ostringstream s;
  s << t.sizes();
  return s.str();
}

std::optional<at::ScalarType> CompareType(const std::string& name) {
  if (name == "float32") return at::kFloat;
  if (name == "float64") return at::kDouble;
  if (name == "bfloat16") return at::kBFloat16;
  if (name == "float16") return at::kHalf;
  return std::nullopt;
}

// "X (actual) vs Y (expected)", with the sides' names.
std::string Versus(const std::string& a, const std::string& b, const CloseOptions& o) {
  return a + " (" + o.actual_name + ") vs " + b + " (" + o.expected_name + ")";
}

// Both sides cast to the compare dtype (floating-point tensors only), then checked in double.
void CloseTensors(const at::Tensor& actual_in, const at::Tensor& expected_in, const CloseOptions& o,
                  const std::string& path) {
  at::Tensor actual = actual_in.detach(), expected = expected_in.detach();
  if (const std::optional<at::ScalarType> type = CompareType(o.compare_dtype)) {
    if (actual.is_floating_point()) actual = actual.to(*type);
    if (expected.is_floating_point()) expected = expected.to(*type);
  }
  if (actual.sizes() != expected.sizes())
    throw AssertionError(path + ": shapes differ: " + Versus(Shape(actual), Shape(expected), o));
  if (actual.scalar_type() != expected.scalar_type())
    throw AssertionError(path + ": dtypes differ: " +
                         Versus(c10::toString(actual.scalar_type()), c10::toString(expected.scalar_type()), o) +
                         (o.compare_dtype.empty() && actual.is_floating_point() && expected.is_floating_point()
                              ? "; to check a precision change, cast both to one dtype: check.declarative."
                                "compare_dtype (torchscan-client --check-dtype float32)"
                              : ""));
  const at::Tensor a = actual.to(torch::kCPU, torch::kDouble);
  const at::Tensor b = expected.to(torch::kCPU, torch::kDouble);
  if (o.require_finite && (!torch::isfinite(a).all().item<bool>() || !torch::isfinite(b).all().item<bool>()))
    throw AssertionError(path + ": values are not all finite (NaN or Inf found)");
  const at::Tensor diff = (a - b).abs();
  const at::Tensor allowed = o.atol + o.rtol * b.abs();
  const at::Tensor bad = (diff > allowed).logical_or(diff.isnan());
  const int64_t bad_count = bad.sum().item<int64_t>();
  if (bad_count == 0) return;
  const int64_t worst = diff.nan_to_num(std::numeric_limits<double>::infinity()).flatten().argmax().item<int64_t>();
  std::ostringstream message;
  message << path << ": " << bad_count << " of " << a.numel() << " elements differ beyond rtol=" << o.rtol
          << ", atol=" << o.atol << "; max abs diff " << diff.flatten()[worst].item<double>() << " at flat index "
          << worst;
  throw AssertionError(message.str());
}

void Close(const c10::IValue& a, const c10::IValue& b, const CloseOptions& o, const std::string& path) {
  if (a.isTensor() && b.isTensor()) return CloseTensors(a.toTensor(), b.toTensor(), o, path);
  if ((a.isTuple() || a.isList()) && (b.isTuple() || b.isList())) {
    const std::vector<c10::IValue> av = a.isTuple() ? a.toTupleRef().elements().vec() : a.toListRef().vec();
    const std::vector<c10::IValue> bv = b.isTuple() ? b.toTupleRef().elements().vec() : b.toListRef().vec();
    if (av.size() != bv.size())
      throw AssertionError(path +
                           ": lengths differ: " + Versus(std::to_string(av.size()), std::to_string(bv.size()), o));
    for (size_t i = 0; i < av.size(); ++i) Close(av[i], bv[i], o, path + "[" + std::to_string(i) + "]");
    return;
  }
  if (a.isGenericDict() && b.isGenericDict()) {
    const auto ad = a.toGenericDict(), bd = b.toGenericDict();
    const auto name = [](const c10::IValue& key) { return key.isString() ? key.toStringRef() : key.tagKind(); };
    // A key on one side only is named with the side that has it, before any value is compared.
    for (const auto& entry : ad)
      if (!bd.contains(entry.key()))
        throw AssertionError(path + ": key \"" + name(entry.key()) + "\" is in the " + o.actual_name +
                             "'s output, not the " + o.expected_name + "'s");
    for (const auto& entry : bd)
      if (!ad.contains(entry.key()))
        throw AssertionError(path + ": key \"" + name(entry.key()) + "\" is in the " + o.expected_name +
                             "'s output, not the " + o.actual_name + "'s");
    for (const auto& entry : ad) Close(entry.value(), bd.at(entry.key()), o, path + "[\"" + name(entry.key()) + "\"]");
    return;
  }
  if (a.tagKind() != b.tagKind()) throw AssertionError(path + ": kinds differ: " + Versus(a.tagKind(), b.tagKind(), o));
  if (!(a == b)) throw AssertionError(path + ": values differ");
}

}  // namespace

bool IsCompareDType(const std::string& name) { return CompareType(name).has_value(); }

std::string DescribeCloseOptions(const CloseOptions& o) {
  std::ostringstream text;
  text << "rtol=" << o.rtol << ", atol=" << o.atol;
  if (!o.compare_dtype.empty()) text << ", compared as " << o.compare_dtype;
  if (o.require_finite) text << ", all finite";
  return text.str();
}

void AssertClose(const c10::IValue& actual, const c10::IValue& expected, const CloseOptions& options) {
  if (!(options.rtol >= 0) || !(options.atol >= 0))
    throw std::invalid_argument("AssertClose: rtol and atol must be numbers >= 0 (TorchScan chooses no tolerance)");
  if (!options.compare_dtype.empty() && !IsCompareDType(options.compare_dtype))
    throw std::invalid_argument("AssertClose: compare_dtype \"" + options.compare_dtype +
                                "\" is not one of float32, float64, bfloat16, float16");
  Close(actual, expected, options, "output");
}

}  // namespace torchscan::experiment
