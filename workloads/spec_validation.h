// The rules a WorkloadSpec (proto/workload.proto) must satisfy before anything is built. Pure
// (no LibTorch): only the spec's fields and the built-in table (spec/builtin_models.h) are
// read. The rules that need the inputs or the model (shapes, files, methods) are checked
// where those are made (inputs.h, torchscript_build.h, workload.h).
#pragma once

#include "absl/status/status.h"
#include "proto/workload.pb.h"

namespace torchscan::workloads {

// OK, or kInvalidArgument naming the field and the fix: no model; an unknown built-in
// (builtin_unspecified included); freeze, optimize_for_inference, work_units or work_unit on
// a built-in; a TorchScript model without inputs; negative work_units; an unknown dtype or
// execution_mode value.
absl::Status ValidateWorkloadSpec(const torchscan::v1::WorkloadSpec& spec);

// OK, or kInvalidArgument naming the first spec.input_metadata key that TorchScan records
// itself ("seed", "input.*"; in the map's order).
absl::Status CheckInputMetadataKeys(const torchscan::v1::WorkloadSpec& spec);

}  // namespace torchscan::workloads
