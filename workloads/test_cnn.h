// Test data for the FLOP tests: a small CNN as a TorchScript module defined in C++
// (torch::jit::Module::define), and its FLOPs computed by hand (2 x multiply-adds, bias
// additions not counted; flop_formulas.h).
#pragma once

#include <cstdint>

#include <torch/script.h>

namespace torchscan::workloads {

// Conv2d(3, 16, 3, padding 1), ReLU, Conv2d(16, 32, 3, padding 1), ReLU, flatten, Linear(8192, 10)
// on [N, 3, 16, 16] images; weights from torch::manual_seed(0); parameters w1, b1, w2, b2, fw, fb.
// Not yet in eval mode (BuildWorkload sets it; torch::jit::freeze needs it).
torch::jit::Module TestCnn();

// FLOPs per image of each layer.
inline constexpr int64_t kTestCnnConv1Flops = 2LL * 16 * (16 * 16) * 3 * (3 * 3);                        // 221,184
inline constexpr int64_t kTestCnnConv2Flops = 2LL * 32 * (16 * 16) * 16 * (3 * 3);                       // 2,359,296
inline constexpr int64_t kTestCnnLinearFlops = 2LL * (32 * 16 * 16) * 10;                                // 163,840
inline constexpr int64_t kTestCnnFlops = kTestCnnConv1Flops + kTestCnnConv2Flops + kTestCnnLinearFlops;  // 2,744,320

}  // namespace torchscan::workloads
