#include "workloads/spec_validation.h"

#include "absl/strings/str_cat.h"
#include "spec/builtin_models.h"
#include "spec/field_rules.h"

namespace torchscan::workloads {

using torchscan::v1::ModelSpec;
using torchscan::v1::WorkloadSpec;

absl::Status ValidateWorkloadSpec(const WorkloadSpec& spec) {
  const ModelSpec& model = spec.model();
  if (model.source_case() == ModelSpec::SOURCE_NOT_SET) {
    return absl::InvalidArgumentError(absl::StrCat("model: not set; set model.builtin (",
                                                   spec::BuiltinNameList(", ", ", "), ") or model.torchscript"));
  }
  if (model.source_case() == ModelSpec::kBuiltin) {
    if (spec::FindBuiltin(model.builtin()) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("model.builtin: choose ", spec::BuiltinNameList(", ", " or ")));
    }
    if (spec.freeze() || spec.optimize_for_inference()) {
      return absl::InvalidArgumentError(
          "freeze / optimize_for_inference apply to TorchScript models only; unset them for model.builtin");
    }
    if (spec.work_units() != 0 || !spec.work_unit().empty()) {
      return absl::InvalidArgumentError(
          "work_units / work_unit apply to TorchScript models only (built-ins define theirs); unset them");
    }
  } else if (spec.inputs().empty()) {
    return absl::InvalidArgumentError("inputs: a TorchScript model needs its inputs; add one InputSpec per argument");
  }
  if (spec.work_units() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("work_units is ", spec.work_units(), "; it must be >= 0 (0: default)"));
  }
  if (!WorkloadSpec::Precision_IsValid(spec.dtype()) || !WorkloadSpec::ExecutionMode_IsValid(spec.execution_mode())) {
    return absl::InvalidArgumentError("dtype / execution_mode: unknown enum value");
  }
  return absl::OkStatus();
}

absl::Status CheckInputMetadataKeys(const WorkloadSpec& spec) {
  for (const auto& [key, value] : spec.input_metadata()) {
    if (spec::IsOwnInputMetadataKey(key))
      return spec::FieldError("input_metadata", absl::StrCat("key \"", key, "\" ", spec::kOwnMetadataKey));
  }
  return absl::OkStatus();
}

}  // namespace torchscan::workloads
