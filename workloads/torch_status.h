// The one adapter between LibTorch's exceptions and TorchScan's statuses.
//
// LibTorch reports failures by throwing (c10::Error and its subclasses, torch::jit's
// exceptions, std::exception). Code in workloads calls LibTorch only through
// RunTorch, so that no exception crosses a function that returns a status.
#pragma once

#include <functional>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"

namespace torchscan::workloads {

// Runs `fn` and maps what it throws to a status whose message is
// "<what>: <LibTorch's message without its C++ backtrace>", on one line (a TorchScript
// interpreter error keeps its final "RuntimeError: ..." line, not the traceback of code
// excerpts above it; other lines are joined by spaces). A module file from a newer PyTorch
// ("please upgrade PyTorch") is explained naming this LibTorch's version and the fix; an
// unknown operator notes that version too.
//   - out of memory (c10::OutOfMemoryError, or the CPU allocator's "can't allocate memory"
//     / any "out of memory" message)                  -> kResourceExhausted
//   - any other c10::Error or std::exception          -> `error_code` (default kInvalidArgument:
//     most LibTorch errors here come from user input: bad modules, shapes, dtypes)
//   - anything else thrown                            -> kInternal
// Returns OkStatus when `fn` returns normally. `fn` must not be empty.
absl::Status RunTorch(absl::string_view what, const std::function<void()>& fn,
                      absl::StatusCode error_code = absl::StatusCode::kInvalidArgument);

}  // namespace torchscan::workloads
