#include "workloads/forward_call.h"

#include <utility>

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

namespace torchscan::workloads {
namespace {

c10::IValue Combine(const std::vector<c10::IValue>& outputs, bool concatenate) {
  const c10::IValue& first = outputs.front();
  if (first.isTensor()) {
    std::vector<at::Tensor> tensors;
    tensors.reserve(outputs.size());
    for (const auto& o : outputs) {
      TORCH_CHECK(o.isTensor(), "per_sample: sample outputs differ in type (", first.tagKind(), " vs ", o.tagKind(),
                  ")");
      tensors.push_back(o.toTensor());
    }
    return concatenate ? at::cat(tensors, 0) : at::stack(tensors, 0);
  }
  if (first.isTuple()) {
    const size_t n = first.toTuple()->elements().size();
    std::vector<c10::IValue> combined;
    for (size_t j = 0; j < n; ++j) {
      std::vector<c10::IValue> column;
      for (const auto& o : outputs) {
        TORCH_CHECK(o.isTuple() && o.toTuple()->elements().size() == n,
                    "per_sample: sample outputs differ in structure");
        column.push_back(o.toTuple()->elements()[j]);
      }
      combined.push_back(Combine(column, concatenate));
    }
    return c10::ivalue::Tuple::create(std::move(combined));
  }
  TORCH_CHECK(false, kPerSampleCannotCombine, " of type ", first.tagKind(),
              "; per_sample supports tensor outputs and tuples of them (use execution_mode batch)");
  return {};
}

}  // namespace

std::function<c10::IValue()> MakeCall(Forward forward, std::vector<at::Tensor> inputs, bool per_sample,
                                      bool keep_batch_dim) {
  if (!per_sample) {
    return [forward = std::move(forward), inputs = std::move(inputs)] {
      c10::InferenceMode inference;
      return forward(inputs);
    };
  }
  return [forward = std::move(forward), inputs = std::move(inputs), keep_batch_dim] {
    c10::InferenceMode inference;
    const int64_t samples = inputs.front().size(0);
    std::vector<c10::IValue> outputs;
    outputs.reserve(static_cast<size_t>(samples));
    std::vector<at::Tensor> sample(inputs.size());
    for (int64_t i = 0; i < samples; ++i) {
      for (size_t k = 0; k < inputs.size(); ++k) {
        sample[k] = keep_batch_dim ? inputs[k].narrow(0, i, 1) : inputs[k].select(0, i);
      }
      outputs.push_back(forward(sample));
    }
    return Combine(outputs, keep_batch_dim);
  };
}

std::vector<std::vector<int64_t>> ForwardInputShapes(const std::vector<at::Tensor>& inputs, bool per_sample,
                                                     bool keep_batch_dim) {
  std::vector<std::vector<int64_t>> shapes;
  for (const at::Tensor& t : inputs) {
    std::vector<int64_t> shape = t.sizes().vec();
    if (per_sample && keep_batch_dim) shape[0] = 1;
    if (per_sample && !keep_batch_dim) shape.erase(shape.begin());
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

}  // namespace torchscan::workloads
