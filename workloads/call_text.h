// How errors and descriptions name a workload's tensors and calls. Pure text (no LibTorch):
// the builder (workload.h) summarises each tensor as name, shape and dtype name first.
// Never fails: every function formats what it is given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torchscan::workloads {

// One tensor as the texts below name it.
struct TensorSummary {
  std::string name;            // the input's name, e.g. "x" or "input0"
  std::vector<int64_t> shape;  // as the text should show it
  std::string dtype;           // e.g. "float32" (torch_text.h: DTypeName)
};

// "[32, 65] float32"; "[] int64" for a scalar.
std::string ShapeText(const std::vector<int64_t>& shape, const std::string& dtype);

// The inputs as made, for errors: "x [32, 65] float32, mask [32, 65] int64 on cpu".
std::string InputsText(const std::vector<TensorSummary>& inputs, const std::string& device);

// One forward as it was called, for errors: "forward(x: Tensor[32, 65] float32) on cpu", with
// the shapes one forward sees (per sample, the sample's).
std::string CallText(const std::string& method, const std::vector<TensorSummary>& forward_inputs,
                     const std::string& device);

}  // namespace torchscan::workloads
