// A TorchScript model as a workload runs it: the module loaded from the spec's bytes or path,
// its method found, its weights converted (tensor_conversion.h), frozen or optimised for
// inference when the spec asks, and its graph ready to scan (graph_scan.h).
#pragma once

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "absl/status/statusor.h"
#include "proto/workload.pb.h"
#include "workloads/built_model.h"

namespace torchscan::workloads {

// Builds `ts`, the TorchScript model of `spec` (spec.freeze, spec.optimize_for_inference and
// spec.channels_last apply). The model's revision is the module file's "sha256:<hex>"; its
// description holds model_source (the file's name, uploaded or read here, and size) and
// method. Its weights are the parameters and buffers plus the tensor constants of the method's
// graph (frozen weights become constants).
// Errors, each naming the field: kInvalidArgument for no source, empty module_bytes, bytes or
// a file that are not a TorchScript module, a method the module lacks (listing its methods),
// a failed freeze / optimize_for_inference; kNotFound (or kInvalidArgument for what is not a
// regular file) for a path this process cannot read (workload_file.h); LibTorch's failures
// converting the weights, as RunTorch (torch_status.h) maps them.
absl::StatusOr<BuiltModel> BuildTorchScript(const torchscan::v1::TorchScriptSpec& ts,
                                            const torchscan::v1::WorkloadSpec& spec, const c10::Device& device,
                                            at::ScalarType dtype);

}  // namespace torchscan::workloads
