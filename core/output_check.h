// The guide's output check: a callable run outside timing whose outcome the comparison
// records. No LibTorch here; torch-facing checks throw AssertionError on mismatch.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "proto/report.pb.h"

namespace torchscan {

// Thrown by a check to fail it (the C++ counterpart of Python's AssertionError).
class AssertionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Returns std::nullopt or true to pass, false to fail; throws AssertionError to fail with
// a message. Any other exception is an error in the check itself.
using CheckFn = std::function<std::optional<bool>()>;

// Runs `check` once and records its outcome: an empty CheckFn is not_provided; nullopt or
// true is passed; false is failed ("check returned false"); AssertionError is failed with
// its message. Every other exception propagates unchanged (the guide: "Other exceptions
// propagate").
v1::OutputCheck RunOutputCheck(const CheckFn& check);

}  // namespace torchscan
