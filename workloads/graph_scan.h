// Lists the compute nodes of a TorchScript module's method graph as it runs (after
// torch::jit::freeze / optimize_for_inference), with the FLOPs of each where its shapes are
// static: the input for ReconcileGraphCompute (graph_compute.h).
//
// The scan walks the method's graph and its sub-blocks (prim::If and prim::Loop bodies:
// conditional; prim::fork subgraphs: another thread), expanding prim::CallMethod and
// prim::CallFunction at their call sites. Shapes start from `input_shapes` (the method's tensor
// arguments after self) and from the graph's constants and module attributes (frozen weights,
// prim::ConstantMKLDNNTensor, XNNPACK prepacked contexts through
// prepacked::unpack_prepacked_sizes_*), and follow the operators shape_rules.h knows; FLOPs use
// flop_formulas.h (prepacked::conv2d_clamp_run and linear_clamp_run as conv2d and linear). A node
// is observable when its operator goes through the c10 dispatcher (RecordFunction sees it); JIT-only
// operators such as prim::mkldnn_convolution are not. Nothing is run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/csrc/jit/api/module.h>

#include "workloads/graph_compute.h"

namespace torchscan::workloads {

// Never throws: a method that does not exist, or a failure while scanning (a LibTorch error, nesting
// deeper than 64 calls), comes back in GraphCompute::error with the nodes found so far. Shapes
// beyond input_shapes' size, and any shape a rule cannot derive, are unknown: nodes that depend
// on them get flops nullopt and a detail naming the value.
GraphCompute ScanGraphCompute(const torch::jit::Module& module, const std::string& method,
                              const std::vector<std::vector<int64_t>>& input_shapes, int64_t forwards_per_call);

}  // namespace torchscan::workloads
