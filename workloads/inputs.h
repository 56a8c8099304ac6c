// Input tensors of a workload, made from InputSpecs: generated from (shape, dtype,
// distribution, seed) or loaded from a torch::save file, always on the CPU and in their
// source dtype, the InputSpec's (generated) or the file's (BuildWorkload converts precision,
// layout and device afterwards). Each comes with the metadata fields that let a report
// reproduce it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <ATen/core/Tensor.h>

#include "absl/status/statusor.h"
#include "proto/workload.pb.h"
#include "workloads/workload_file.h"

namespace torchscan::workloads {

struct PreparedInput {
  std::string name;                           // spec name, or "input<index>"
  at::Tensor tensor;                          // CPU tensor
  std::map<std::string, std::string> fields;  // "source", "distribution", "seed", "fingerprint"
  std::optional<FileRecord> file;             // a tensor file's name and SHA-256 (not input metadata)
};

// Makes input `index` of `spec` (`field` names it in errors, e.g. "inputs[1]").
// `remaining_bytes` is the input memory budget left (WorkloadOptions.max_input_bytes minus the
// earlier inputs); the tensor's bytes are subtracted from it.
// Generated tensors: the size (numel x element size) is checked against the budget before
// anything is allocated. Without `seed` they are drawn from the global generator (so their
// values depend on what was drawn before: BuildWorkload seeds it and builds the model
// first); with `seed`, from a private CPU generator seeded with it.
// Tensor files (tensor_bytes sent with the job, or tensor_file read by this process: see
// workload_file.h): the file size is checked against the budget before loading, the loaded
// tensor after; the file must hold one tensor, written by Python's torch.save (zip format) or
// C++ torch::save. Its fields are source "tensor file" and its content fingerprint (dtype,
// shape, values); the file's name and SHA-256 go to `file`, since the same contents under
// another name are the same input.
// Errors: kInvalidArgument for a source not set, negative dimensions, an element count that
// overflows, parameters that do not fit the distribution (std <= 0, high <= low, a normal or
// uniform distribution for an integer dtype), a path that is not a regular file or a file
// that holds no tensor; kNotFound for a tensor_file this process cannot read (naming its
// user); kResourceExhausted when over the budget. Each message names the field.
absl::StatusOr<PreparedInput> MakeInput(const torchscan::v1::InputSpec& spec, int index, int64_t* remaining_bytes);

}  // namespace torchscan::workloads
