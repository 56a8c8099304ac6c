// The worker's half of the model-format seam (spec/model_format.h): each format's builder,
// found by the spec's ModelSpec source case. The spec is valid (spec::ValidateWorkloadFields
// ran); the builder returns the model converted to `device` and `dtype` as its format allows.
#pragma once

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "absl/status/statusor.h"
#include "proto/workload.pb.h"
#include "workloads/built_model.h"

namespace torchscan::workloads {

absl::StatusOr<BuiltModel> BuildModelOf(const torchscan::v1::WorkloadSpec& spec, const c10::Device& device,
                                        at::ScalarType dtype);

}  // namespace torchscan::workloads
