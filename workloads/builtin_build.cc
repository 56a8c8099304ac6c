#include "workloads/builtin_build.h"

#include <string>
#include <utility>

#include <torch/torch.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/version.h"
#include "workloads/builtin_factories.h"
#include "workloads/tensor_conversion.h"
#include "workloads/torch_status.h"

namespace torchscan::workloads {

absl::StatusOr<BuiltModel> BuildBuiltin(const spec::BuiltinModel& entry, const c10::Device& device,
                                        at::ScalarType dtype, bool channels_last) {
  const BuiltinFactory factory = FindBuiltinFactory(entry.id);
  if (factory == nullptr) {
    return absl::InternalError(
        absl::StrCat("model.builtin ", entry.name, " has no factory registered (workloads/builtin_factories.cc)"));
  }
  BuiltinModule module;
  absl::Status built = RunTorch(absl::StrCat("building model.builtin ", entry.name), [&] {
    module = factory();
    ConvertInPlace(module.tensors, device, dtype, channels_last);
  });
  if (!built.ok()) return built;
  BuiltModel model;
  model.name = entry.name;
  model.revision = absl::StrCat("torchscan ", kTorchScanVersion, " built-in ", model.name,
                                " (LibTorch C++ frontend, weights initialised locally from the seed)");
  model.forward = std::move(module.forward);
  model.weights = std::move(module.tensors);
  model.needs_batch_dim = entry.keeps_batch_dim;
  model.description = entry.description;
  return model;
}

absl::Status CompleteBuiltinInputs(const spec::BuiltinModel& entry, std::vector<PreparedInput>* inputs,
                                   int64_t* remaining_bytes) {
  const size_t required = static_cast<size_t>(entry.required_inputs);
  const size_t max_inputs = required + entry.optional_inputs.size();
  if (inputs->empty() || inputs->size() < required || inputs->size() > max_inputs) {
    return absl::InvalidArgumentError(absl::StrCat("inputs: model.builtin ", entry.name, " takes ", entry.inputs_text,
                                                   "; got ", inputs->size(), " (leave inputs empty for the defaults)"));
  }
  const at::Tensor first = inputs->front().tensor;  // a handle: push_back below may reallocate
  while (inputs->size() < max_inputs) {
    const spec::ConstantInput& constant = entry.optional_inputs[inputs->size() - required];
    const int64_t bytes = static_cast<int64_t>(first.numel()) * 8;
    if (bytes > *remaining_bytes) {
      std::vector<std::string> names;
      for (const spec::ConstantInput& optional : entry.optional_inputs) names.push_back(optional.name);
      return absl::ResourceExhaustedError(
          absl::StrCat("inputs: ", entry.name, "'s default ", absl::StrJoin(names, " / "),
                       " exceed WorkloadLimits.max_input_bytes; use fewer ", entry.work_unit, " or raise the limit"));
    }
    *remaining_bytes -= bytes;
    PreparedInput input;
    input.name = constant.name;
    absl::Status made = RunTorch(absl::StrCat(entry.name, " default inputs"),
                                 [&] { input.tensor = torch::full(first.sizes(), constant.value, torch::kInt64); });
    if (!made.ok()) return made;
    input.fields["source"] = constant.source;
    inputs->push_back(std::move(input));
  }
  return absl::OkStatus();
}

}  // namespace torchscan::workloads
