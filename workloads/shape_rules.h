// Output shapes of the operators a TorchScript graph runs between its compute nodes (e.g. a
// frozen, optimize_for_inference graph: to_mkldnn, relu_, flatten, to_dense), from one call's
// arguments in the OpArg form of flop_formulas.h. Enough to follow static shapes from a method's
// inputs to its convolutions and linears (graph_scan.h). Pure functions, no LibTorch.
//
// Known: the operators with a FLOP formula (their output shape, FormulaOutputShape); unary,
// activation, normalisation, softmax, dropout, copy and layout-conversion operators, in-place
// ones and the MKLDNN ones of frozen graphs (prim::MKLDNNHardSwish_, prim::MKLDNNLayerNorm, ...):
// the input's shape; binary elementwise operators: the broadcast shape (also the two outputs of
// prim::BroadcastMKLDNNTensors); flatten, reshape, view, permute, transpose, t, squeeze,
// unsqueeze; max/avg pooling (kernel, stride, padding, dilation, ceil_mode) and adaptive pooling;
// mean/sum over a dimension list.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "workloads/flop_formulas.h"

namespace torchscan::workloads {

// The shapes of the tensor outputs of one call of `kind` with `args` (positional, in the
// operator's schema order). A tensor argument must come as OpArg::Tensor: a second argument of
// another kind (Int, Bool, Other) is taken for a scalar, so a caller that does not know a
// tensor's shape must not ask. nullopt when the operator is not listed above or its arguments do
// not give the shapes (a tensor argument of unknown shape, a list that is not a constant, shapes
// that do not broadcast, an out-of-range dimension, a reshape that does not preserve the number
// of elements, a pooling window without outputs): the caller treats those shapes as unknown.
std::optional<std::vector<std::vector<int64_t>>> OutputShapes(std::string_view kind, const std::vector<OpArg>& args);

}  // namespace torchscan::workloads
