// Output checks over LibTorch values, for use inside a CheckFn (core/output_check.h).
#pragma once

#include <string>

namespace c10 {
class IValue;
}
namespace at {
class Tensor;
}

namespace torchscan {

struct CloseOptions {
  double rtol = 1e-4;            // the guide's tolerance for the built-in examples
  double atol = 1e-5;
  bool require_finite = true;    // NaN or Inf in either value fails
};

// torch.testing.assert_close for LibTorch values: tensors must have equal shapes and
// dtypes and satisfy |a - b| <= atol + rtol * |b| element-wise (NaN never equal); tuples,
// lists and string-keyed dicts are compared element by element with the path in the
// message (e.g. "output[1]: 3 of 4096 elements differ; max abs diff 0.5 at index 17").
// Other values must compare equal. Throws AssertionError on any mismatch.
void AssertClose(const c10::IValue& actual, const c10::IValue& expected, const CloseOptions& options = {});

}  // namespace torchscan
