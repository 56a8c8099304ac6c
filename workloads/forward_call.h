// A workload's call (workload.h: Workload::call): the model's forward on the resident inputs
// under c10::InferenceMode, once for the batch or once per sample.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include "workloads/built_model.h"

namespace torchscan::workloads {

// The start of the error a per_sample call raises when its outputs cannot be stacked.
inline constexpr char kPerSampleCannotCombine[] = "per_sample: cannot combine outputs";

// The call. Batch (per_sample false): forward(inputs). per_sample: one forward per index i of
// dim 0 on every input's input[i] (keep_batch_dim: input.narrow(0, i, 1)), the outputs stacked
// on a new dim 0 (keep_batch_dim: concatenated on dim 0), element-wise for tuples.
// Every input must have the same non-empty dim 0 (the builder checks it before).
// The call throws what the forward throws, and c10::Error when per-sample outputs differ in
// type or structure or are neither tensors nor tuples of them: wrap calls in RunTorch
// (torch_status.h).
std::function<c10::IValue()> MakeCall(Forward forward, std::vector<at::Tensor> inputs, bool per_sample,
                                      bool keep_batch_dim);

// The input shapes one forward of that call sees: per_sample selects dim 0 (or narrows it to 1
// with keep_batch_dim). Never fails (a per-sample input needs dim >= 1, as above).
std::vector<std::vector<int64_t>> ForwardInputShapes(const std::vector<at::Tensor>& inputs, bool per_sample,
                                                     bool keep_batch_dim);

}  // namespace torchscan::workloads
