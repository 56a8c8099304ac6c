// The "linear" built-in's factory: torch::nn::Linear(128, 128) with bias, LibTorch's default
// initialisation (as torch.nn.Linear), in eval mode; forward(x [..., 128]) -> [..., 128].
// Its table entry (default input, work unit, description) is in spec/builtin_models.cc.
#pragma once

#include "workloads/builtin_module.h"

namespace torchscan::workloads {

// See builtin_module.h. Can throw what LibTorch throws.
BuiltinModule MakeLinear();

}  // namespace torchscan::workloads
