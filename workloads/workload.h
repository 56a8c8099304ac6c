// A runnable workload built from a WorkloadSpec (proto/workload.proto): the model and its
// inputs already resident on the device, one call = one forward (or one forward per sample),
// plus what a report must record about it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "devices/device.h"
#include "proto/report.pb.h"
#include "proto/workload.pb.h"
#include "workloads/built_model.h"
#include "workloads/graph_compute.h"

namespace torchscan::workloads {

// How BuildWorkload builds: the limits a daemon applies, and whether it tries a call.
struct WorkloadOptions {
  // Bytes all inputs may take together (numel x element size of each, as generated or loaded),
  // checked before each input is allocated. Default 4 GiB.
  int64_t max_input_bytes = int64_t{4} << 30;
  // true (default): run `call` once after building, so that inputs that do not fit the model
  // fail the build naming them, and describe the output. false: no call at all (the RSS
  // child, whose scope counts every completed call); description "output" then says so.
  bool trial_call = true;
  // true (default): the trial call first runs the model's checked forward, where it has one
  // (an AOTInductor package's second load with input checks on). false: a rebuild of a spec
  // already built and checked in this process (a compare's later build pairs), which skips it.
  bool check_inputs = true;
};

struct Workload {
  // One forward pass in eval mode under c10::InferenceMode on the resident inputs: no loading,
  // transfers or output checks inside. per_sample runs one forward per index of dim 0 and
  // stacks (or concatenates, keep_batch_dim) the outputs, element-wise for tuples.
  // Returns the model's output (a Tensor, or a tuple such as bert's (hidden states, pooled)).
  // It can throw what LibTorch throws (c10::Error, a std::exception): wrap calls with RunTorch
  // (torch_status.h) or catch std::exception. BuildWorkload has already run it once.
  std::function<c10::IValue()> call;
  // What a comparison must match (the inputs, not the model): per input a tensor with its
  // name, shape, the device it is resident on and the dtype of its source data (the
  // generated tensor's or the tensor file's, before any precision change: a bfloat16 workload
  // on generated float32 inputs records "float32"), and fields "seed", per input
  // "input.<name>.<key>" with source, distribution, seed (or the fingerprint of a tensor
  // file), and the caller's spec.input_metadata under its own keys. The model and every
  // candidate change (model revision, method, execution mode, precision, layout, freezing)
  // are not here but in `description`, so that a comparison lists them as changed settings
  // instead of refusing to compare.
  torchscan::v1::InputMetadata input_metadata;
  double work_units = 0;  // linear: 32 (samples); resnet18: 4 (images); bert: 32 (tokens)
  std::string work_unit;  // "samples", "images", "tokens" (or the TorchScript spec's)
  // What ran: model, model_revision (built-in name and TorchScan version, or the module
  // file's "sha256:<hex>", as sha256sum prints it), model_source (the file's name, uploaded
  // or read on the daemon's machine, and size), execution_mode, dtype (the precision,
  // spec.dtype: what the weights and floating-point inputs were converted to), device,
  // channels_last, freeze, optimize_for_inference, method, given_mode (kGivenModeKey: "training"
  // for a module saved in training mode), seed, work_unit(s), output,
  // weights, and per tensor file input.<name>.file (name, how it came, size) and
  // input.<name>.sha256; for bert also config and throughput_note (input tokens/s, not
  // generation throughput).
  std::map<std::string, std::string> description;
  // Model weights (parameters, buffers, frozen constants) and inputs held by `call`: the
  // resident baseline for MeasurePeakMemory (passes/peak_memory.h).
  std::vector<at::Tensor> resident_tensors;
  // The device it runs on (devices/device.h): its name (device->text(), "cpu" or "cuda:N"),
  // how to wait for its queued work, time a block and read its memory peaks. Never null.
  std::shared_ptr<devices::Device> device;
  // TorchScript only: the compute nodes of the method's graph as it runs (after freeze /
  // optimize_for_inference), with static FLOPs for the shapes one forward sees and
  // forwards_per_call (per_sample: the samples), for ProfileWorkload to count what its observers
  // cannot see (graph_compute.h, graph_scan.h). nullopt for the built-ins (C++ frontend, no graph).
  std::optional<GraphCompute> graph_compute;
  // Why the operator profile cannot see all of this workload's compute (empty when it can): an
  // AOTInductor package's compiled kernels run outside the dispatcher (BuiltModel.opaque_compute).
  OpaqueCompute opaque_compute;
};

// Builds the workload: validates the spec (spec/job_spec.h ValidateWorkloadFields), runs torch::manual_seed(spec.seed),
// constructs or loads the model (eval mode; builtin_build.h, torchscript_build.h), makes the
// inputs (inputs.h), converts weights and floating inputs to spec.dtype, applies channels_last
// (tensor_conversion.h), freezes / optimize_for_inference (TorchScript), moves everything to the
// device, makes the call (forward_call.h) and (options.trial_call) runs it once to check that the
// inputs fit the model.
// Errors (never throws), each naming the field and the fix:
//   kInvalidArgument: no model / builtin_unspecified; an input_metadata key TorchScan uses
//     itself ("seed", "input.*"); a device this machine cannot drive
//     (devices/device_registry.h: "mps", "cuda:N" without CUDA); freeze, optimize_for_inference or work units on
//     a built-in; TorchScript bytes or file that are not a module; a missing method; no inputs
//     for TorchScript, the wrong number for a built-in; channels_last without a 4-D input;
//     per_sample inputs without a common dim 0; inputs that do not fit the model (the trial
//     call failed: shapes, dtypes, a precision the device lacks); bad input specs (inputs.h).
//   kNotFound: an unreadable TorchScript or tensor file.
//   kResourceExhausted: inputs over options.max_input_bytes (checked before allocating), or
//     LibTorch ran out of memory.
absl::StatusOr<Workload> BuildWorkload(const torchscan::v1::WorkloadSpec& spec,
                                       const WorkloadOptions& options = WorkloadOptions());

}  // namespace torchscan::workloads
