// What a built-in model's factory returns (linear.h, resnet18.h, bert.h; registered in
// builtin_factories.h): the model, constructed in eval mode on the CPU in float32, its weights
// drawn from the global generator (BuildWorkload seeds it first), as a forward over the
// positional inputs and the tensors that forward reads. BuildWorkload converts those tensors
// in place (precision, layout, device), so the forward sees the converted weights.
#pragma once

#include <functional>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

namespace torch::nn {
class Module;
}  // namespace torch::nn

namespace torchscan::workloads {

struct BuiltinModule {
  // One forward on the inputs (as many as the table's entry allows, all present: the optional
  // ones are filled in first). Can throw what LibTorch throws.
  std::function<c10::IValue(const std::vector<at::Tensor>&)> forward;
  // Every parameter, then every buffer: handles shared with the module.
  std::vector<at::Tensor> tensors;
};

// Constructs a built-in model (see above). Can throw what LibTorch throws (BuildWorkload wraps
// the call with RunTorch).
using BuiltinFactory = BuiltinModule (*)();

// A module's parameters, then its buffers (recursively): the `tensors` of a BuiltinModule.
std::vector<at::Tensor> ModuleTensors(const torch::nn::Module& module);

// The BuiltinModule of a module holder whose forward takes one tensor (torch::nn::Linear,
// ResNet18 ...), put in eval mode. Instantiate it where the holder's type is complete.
template <typename Holder>
BuiltinModule OneInputModule(Holder holder) {
  holder->eval();
  BuiltinModule module;
  module.tensors = ModuleTensors(*holder);
  module.forward = [holder](const std::vector<at::Tensor>& in) mutable { return c10::IValue(holder->forward(in[0])); };
  return module;
}

}  // namespace torchscan::workloads
