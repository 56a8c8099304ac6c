// LibTorch's noisy frames, grouped: the function-level instruction counts of a call
// (instruction_count.h) name kernels and math by function, but put the many small frames every
// operator passes through (dispatch, boxing, reference counts, tensor metadata, the allocator,
// the TorchScript interpreter, the thread pool) each in one group, so that a diff shows "the
// dispatcher grew by 3 %" once instead of forty lines of templates. Pure.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace torchscan::passes {

// The group of a short function name (callgrind_profile.h ShortFunctionName), e.g.
// "[dispatcher and boxing]" for "c10::Dispatcher::callBoxed"; "" when the function keeps its
// own row. Group names are bracketed so that no function can be mistaken for one.
std::string FrameGroup(absl::string_view short_name);

}  // namespace torchscan::passes
