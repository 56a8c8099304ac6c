// Converting a workload's tensors to what the spec asks for: the precision (spec.dtype), the
// device and channels-last layout. One rule for weights and inputs alike: floating tensors
// take the precision, every tensor moves to the device, 4-D floating tensors become
// channels-last when asked; integer and bool tensors keep their dtype.
// Failures are LibTorch's (c10::Error, e.g. out of memory on the device): callers wrap these
// calls in RunTorch (torch_status.h).
#pragma once

#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "proto/workload.pb.h"

namespace torchscan::workloads {

// The dtype of spec.dtype: bfloat16, float16, otherwise (float32, unset) float32.
at::ScalarType PrecisionDtype(torchscan::v1::WorkloadSpec::Precision precision);

// `t` converted by the rule above (a new tensor; `t` itself is unchanged).
at::Tensor ConvertTensor(const at::Tensor& t, const c10::Device& device, at::ScalarType dtype, bool channels_last);

// Converts weights in place, without autograd (set_data keeps the modules' references to them
// valid): each defined tensor of `tensors` (handles to the module's) by the rule above.
void ConvertInPlace(std::vector<at::Tensor> tensors, const c10::Device& device, at::ScalarType dtype,
                    bool channels_last);

}  // namespace torchscan::workloads
