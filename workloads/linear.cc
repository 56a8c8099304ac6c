#include "workloads/linear.h"

#include <torch/nn/modules/linear.h>

namespace torchscan::workloads {

BuiltinModule MakeLinear() { return OneInputModule(torch::nn::Linear(128, 128)); }

}  // namespace torchscan::workloads
