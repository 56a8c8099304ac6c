// The field-level rules that every layer applies in its own vocabulary (the client's flags,
// the daemon's configuration and job fields, the experiment's options, the worker's thread
// settings), decided here once. Pure functions; no LibTorch.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace torchscan::spec {

// InvalidArgument "<field>: <what>": the shape of every refusal that names a field or a flag.
absl::Status FieldError(absl::string_view field, absl::string_view what);

// A path the worker will open, or a file's name shown in a report: at most PATH_MAX bytes
// (kMaxPathBytes), as the kernel takes. OK, or FieldError "<field>: N bytes is longer than a
// path can be (4096)".
absl::Status CheckPathLength(absl::string_view field, absl::string_view path);

// A thread count: 1..max, or also 0 (LibTorch's default) where `zero_allowed`. OK, or
// FieldError "<field>: must be 1..<max>, got <n>" / "must be 0 (default) or 1..<max>, got <n>".
absl::Status CheckThreadCount(absl::string_view field, int64_t threads, int64_t max, bool zero_allowed);

// TorchScan does not choose a tolerance: a declarative output check needs rtol and atol from
// the caller, each a finite number >= 0. The phrase every refusal of a missing one carries:
inline constexpr char kNoToleranceChosen[] = "TorchScan does not choose a tolerance";
// Whether `value` is such a tolerance (false for NaN, the "not given" of the client's flags).
bool IsTolerance(double value);

// An input_metadata key that TorchScan records itself ("seed", "input.*"), so a caller's key
// may not take it. The phrase every refusal of one carries, after the quoted key:
inline constexpr char kOwnMetadataKey[] = "is TorchScan's own (seed, input.*); choose another name";
bool IsOwnInputMetadataKey(absl::string_view key);

}  // namespace torchscan::spec
