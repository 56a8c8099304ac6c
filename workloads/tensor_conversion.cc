#include "workloads/tensor_conversion.h"

#include <ATen/core/grad_mode.h>

namespace torchscan::workloads {

using torchscan::v1::WorkloadSpec;

at::ScalarType PrecisionDtype(WorkloadSpec::Precision precision) {
  switch (precision) {
    case WorkloadSpec::bfloat16: return at::kBFloat16;
    case WorkloadSpec::float16: return at::kHalf;
    default: return at::kFloat;
  }
}

at::Tensor ConvertTensor(const at::Tensor& t, const c10::Device& device, at::ScalarType dtype, bool channels_last) {
  at::Tensor converted = t.is_floating_point() ? t.to(device, dtype) : t.to(device);
  if (channels_last && converted.dim() == 4 && converted.is_floating_point()) {
    converted = converted.contiguous(at::MemoryFormat::ChannelsLast);
  }
  return converted;
}

void ConvertInPlace(std::vector<at::Tensor> tensors, const c10::Device& device, at::ScalarType dtype,
                    bool channels_last) {
  at::NoGradGuard no_grad;
  for (at::Tensor& t : tensors) {
    if (t.defined()) t.set_data(ConvertTensor(t, device, dtype, channels_last));
  }
}

}  // namespace torchscan::workloads
