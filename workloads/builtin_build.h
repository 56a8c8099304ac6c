// A built-in model (spec/builtin_models.h) as a workload runs it: the model from its
// registered factory, and the inputs the built-in fills in when the spec leaves them out.
#pragma once

#include <cstdint>
#include <vector>

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "spec/builtin_models.h"
#include "workloads/built_model.h"
#include "workloads/inputs.h"

namespace torchscan::workloads {

// Constructs `entry`'s model with its factory (builtin_factories.h) and converts its weights in
// place (tensor_conversion.h). Call it under torch::manual_seed and before the inputs are
// made: the weights and generated inputs draw from the same global generator. The model's
// revision names the TorchScan version; its description is the entry's.
// Errors: kInternal for an entry without a registered factory; LibTorch's failures while
// building or converting, as RunTorch (torch_status.h) maps them (e.g. kResourceExhausted).
absl::StatusOr<BuiltModel> BuildBuiltin(const spec::BuiltinModel& entry, const c10::Device& device,
                                        at::ScalarType dtype, bool channels_last);

// A built-in takes fixed arguments: `inputs` holds the spec's; appends those it left out that
// the entry fills in (bert's attention mask and token types), int64 constants shaped like
// input 0, each counted against `remaining_bytes` (8 bytes an element) before it is made.
// Errors: kInvalidArgument when `inputs` is empty or its count is not one the entry takes
// (naming the count it takes); kResourceExhausted when the constants exceed the budget;
// LibTorch's failures making them (RunTorch).
absl::Status CompleteBuiltinInputs(const spec::BuiltinModel& entry, std::vector<PreparedInput>* inputs,
                                   int64_t* remaining_bytes);

}  // namespace torchscan::workloads
