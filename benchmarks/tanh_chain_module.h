// The validity benchmark's workload (issue 14): a TorchScript module, made in memory with
// torch::jit::Module::define, holding a chain of tanh(Linear(256, 256)) layers with weights
// fixed by torch::manual_seed(0) (Linear's own initialisation), and two methods:
//   forward(x)          the first `layers` layers, one after the other
//   forward_plus_one(x) the same layers and one more: about (layers + 1) / layers the work
// so that forward vs forward is an A/A pair and forward vs forward_plus_one a known slowdown
// (+5 % with 20 layers) in one file. Each layer is torch.addmm(bias, y, weight^T), which is
// what Linear computes. Input: any [batch, 256] float tensor.
#pragma once

#include <string>

namespace torchscan::benchmarks {

inline constexpr const char* kChainMethod = "forward";
inline constexpr const char* kChainPlusOneMethod = "forward_plus_one";
inline constexpr int kChainWidth = 256;

// The module's bytes as torch::jit::Module::save writes them (a TorchScript zip), ready for
// TorchScriptSpec.module_bytes. `layers` must be >= 1 (a CHECK: the caller's constant).
std::string TanhChainModuleBytes(int layers);

}  // namespace torchscan::benchmarks
