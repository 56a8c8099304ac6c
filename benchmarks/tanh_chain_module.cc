#include "benchmarks/tanh_chain_module.h"

#include <sstream>

#include <torch/script.h>
#include <torch/torch.h>

namespace torchscan::benchmarks {
namespace {

// The body of a method applying layers 0..count-1 to x.
std::string ChainSource(const std::string& name, int count) {
  std::string source = "def " + name + "(self, x):\n    y = x\n";
  for (int i = 0; i < count; ++i) {
    const std::string n = std::to_string(i);
    source += "    y = torch.tanh(torch.addmm(self.b" + n + ", y, self.w" + n + "))\n";
  }
  return source + "    return y\n";
}

}  // namespace

std::string TanhChainModuleBytes(int layers) {
  TORCH_CHECK(layers >= 1, "TanhChainModuleBytes: layers must be >= 1, got ", layers);
  torch::manual_seed(0);
  torch::jit::Module module("TanhChain");
  for (int i = 0; i <= layers; ++i) {
    torch::nn::Linear linear(kChainWidth, kChainWidth);
    // addmm(b, y, w) = y @ w + b: w is Linear's weight transposed, stored contiguous.
    module.register_parameter("w" + std::to_string(i), linear->weight.detach().t().contiguous(), false);
    module.register_parameter("b" + std::to_string(i), linear->bias.detach().clone(), false);
  }
  module.define(ChainSource(kChainMethod, layers) + "\n" + ChainSource(kChainPlusOneMethod, layers + 1));
  std::ostringstream bytes;
  module.save(bytes);
  return bytes.str();
}

}  // namespace torchscan::benchmarks
