// An AOTInductor package (.pt2) as a workload runs it: the package's bytes (sent with the job,
// or read from its path) written to a private file in $TMPDIR (a sandboxed job's own /tmp),
// loaded with torch::inductor::AOTIModelPackageLoader (which unpacks it into a folder of its
// own under /tmp and dlopens the compiled model), and each call's flat outputs put back into
// the structure the package's call spec names (a tensor, a tuple or list, a dict with string
// keys), so that the output check compares a package with any other format.
#pragma once

#include <c10/core/Device.h>

#include "absl/status/statusor.h"
#include "proto/workload.pb.h"
#include "workloads/built_model.h"

namespace torchscan::workloads {

// Builds the package of `spec.model().aot_inductor()` for `device`. Its revision is the file's
// "sha256:<hex>"; its description holds model_source, the package's device and model name,
// and its output structure. Its weights are the package's constants. No graph scan: a compiled
// model's kernels are not a graph TorchScan can count FLOPs in.
// Errors, naming the field: kInvalidArgument for bytes that are not a package LibTorch can
// load (a TorchScript module, a corrupt or truncated zip, a package of another torch), for a
// package compiled for another kind of device than `device` (naming both), for a model name
// the package lacks; kNotFound for a path this process cannot read (workload_file.h);
// kFailedPrecondition when no private file can be written.
absl::StatusOr<BuiltModel> BuildAotInductor(const torchscan::v1::WorkloadSpec& spec, const c10::Device& device);

}  // namespace torchscan::workloads
