#include "workloads/builtin_module.h"

#include <torch/nn/module.h>

namespace torchscan::workloads {

std::vector<at::Tensor> ModuleTensors(const torch::nn::Module& module) {
  std::vector<at::Tensor> tensors = module.parameters(/*recurse=*/true);
  for (const at::Tensor& b : module.buffers(/*recurse=*/true)) tensors.push_back(b);
  return tensors;
}

}  // namespace torchscan::workloads
