// Output checks over LibTorch values, for use inside a CheckFn (core/output_check.h).
#pragma once

#include <limits>
#include <string>

namespace c10 {
class IValue;
}
namespace at {
class Tensor;
}

namespace torchscan::experiment {

// TorchScan does not choose a tolerance: rtol and atol start as NaN, which AssertClose
// refuses (std::invalid_argument), so every caller states its own.
struct CloseOptions {
  double rtol = std::numeric_limits<double>::quiet_NaN();  // required, >= 0
  double atol = std::numeric_limits<double>::quiet_NaN();  // required, >= 0
  bool require_finite = true;                              // NaN or Inf in either value fails
  // "" (default): the dtypes of compared tensors must be equal. "float32", "float64",
  // "bfloat16" or "float16": floating-point tensors of both sides are cast to it first, so
  // that a precision change (a bfloat16 candidate) can be checked against a float32 baseline.
  std::string compare_dtype{};
  // What the two sides are called in a mismatch message ("shapes differ: [2] (baseline) vs
  // [3] (candidate)", "key \"logits\" is in the baseline's output, not the candidate's").
  std::string actual_name = "actual";
  std::string expected_name = "expected";
};

// The names CloseOptions::compare_dtype accepts besides "": float32, float64, bfloat16, float16.
bool IsCompareDType(const std::string& name);

// "rtol=R, atol=A" plus ", compared as D" and ", all finite" when they apply: what a passed
// check checked, for the comparison's output_check message.
std::string DescribeCloseOptions(const CloseOptions& options);

// torch.testing.assert_close for LibTorch values: tensors must have equal shapes and
// dtypes (after the compare_dtype cast) and satisfy |a - b| <= atol + rtol * |b|
// element-wise (NaN never equal); a dtype mismatch without compare_dtype names the option
// that fixes it. Tuples,
// lists and string-keyed dicts are compared element by element with the path in the
// message (e.g. "output[1]: 3 of 4096 elements differ; max abs diff 0.5 at index 17").
// Other values must compare equal. Throws AssertionError on any mismatch, and
// std::invalid_argument for options it cannot use (rtol/atol NaN or negative, an unknown
// compare_dtype).
void AssertClose(const c10::IValue& actual, const c10::IValue& expected, const CloseOptions& options = {});

}  // namespace torchscan::experiment
