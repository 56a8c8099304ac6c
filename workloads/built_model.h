// The model of a workload as a call sees it, once built and converted to the device, precision
// and layout: what BuildBuiltin (builtin_build.h) and BuildTorchScript (torchscript_build.h)
// return to the builder (workload.h). Plain data, no failure cases.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include "workloads/graph_compute.h"

namespace torchscan::workloads {

// One forward of the model on its inputs, one tensor per argument.
using Forward = std::function<c10::IValue(const std::vector<at::Tensor>&)>;

// Why the operator profile cannot see all of a model's compute (`why`, "" when it can), and what
// to say when the profile holds no kernel markers (named without a namespace, as a package
// compiled with markers records its kernels; experiment/compiled_flops.h).
struct OpaqueCompute {
  std::string why;
  std::string without_markers;
};

// The description key set to "training" when a module was saved in training mode (it is
// measured in eval mode all the same; the experiment warns "training_mode").
inline constexpr char kGivenModeKey[] = "given_mode";

struct BuiltModel {
  Forward forward;
  // A forward that also checks what a compiled model does not check on each call (an
  // AOTInductor package: its inputs' shapes, strides and dtypes), for the fit check's trial
  // call; empty when `forward` checks for itself.
  Forward checked_forward;
  std::vector<at::Tensor> weights;  // resident tensors the forward reads
  std::map<std::string, std::string> description;
  std::string name;      // a built-in's (spec/builtin_models.h), "torchscript" or "aot_inductor"
  std::string revision;  // the description's model_revision
  // TorchScript: the method's signature, "forward(x: Tensor, mask: Tensor)", read from its schema
  // only when an error names it; empty (or "") otherwise.
  std::function<std::string()> signature;
  bool needs_batch_dim = false;  // per_sample must keep dim 0 (a built-in's keeps_batch_dim)
  // Why the operator profile cannot see all of the model's compute (empty when it can).
  OpaqueCompute opaque_compute;
  // TorchScript: scans the method's graph given one forward's input shapes (graph_scan.h).
  std::function<GraphCompute(const std::vector<std::vector<int64_t>>&, int64_t forwards_per_call)> scan_graph;
};

}  // namespace torchscan::workloads
