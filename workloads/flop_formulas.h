// FLOP formulas for LibTorch operators, from the shapes and arguments of one call.
// Pure functions (no LibTorch): the profiler (passes/operator_profile.h) converts each operator's
// inputs into OpArgs and asks here.
//
// Convention (stated in every profile, kFlopConvention): a multiply-add counts as 2 FLOPs.
// Counted: matrix products (mm, addmm, bmm, baddbmm, addbmm, matmul, linear, mkldnn_linear, dot,
// vdot, mv, addmv) = 2·M·N·K over the broadcast batch, and convolutions of any dimension
// (conv1d/2d/3d, conv_transpose1d/2d/3d, convolution, _convolution, _convolution_mode,
// aten::mkldnn_convolution, and prim::mkldnn_convolution, the JIT-only operator of frozen graphs
// after optimize_for_inference, whose arguments keep conv2d's order) =
// 2·N·C_out·prod(output spatial)·(C_in/groups)·prod(kernel), with stride, padding ("same",
// "valid" or explicit), dilation, groups and transposition taken from the arguments.
// Not counted: bias and accumulator additions (addmm's input, beta/alpha scaling, conv bias),
// and every elementwise, activation, normalisation, softmax, pooling, reduction, embedding,
// view and copy operator (ClassifyOperator in operator_classes.h: kNotCounted). Any other
// operator has no formula (kUnknown): the profiler lists it in the diagnostics and marks the
// total a lower bound.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torchscan::workloads {

inline constexpr char kFlopConvention[] =
    "a multiply-add counts as 2 FLOPs; matrix products and convolutions are counted "
    "(2*M*N*K; 2*N*C_out*output positions*C_in/groups*kernel size), bias additions are not; "
    "elementwise, activation, normalisation, softmax, pooling, reduction, embedding, view and "
    "copy operators count 0 by convention";

// One input of an operator call, as far as the formulas need it.
struct OpArg {
  enum class Kind { kNone, kTensor, kIntList, kInt, kBool, kString, kOther };
  Kind kind = Kind::kOther;
  std::vector<int64_t> values;  // kTensor: its shape; kIntList: the list; kInt, kBool: one value
  std::string text;             // kString: the string

  static OpArg None() { return {Kind::kNone, {}, {}}; }
  static OpArg Tensor(std::vector<int64_t> shape) { return {Kind::kTensor, std::move(shape), {}}; }
  static OpArg IntList(std::vector<int64_t> list) { return {Kind::kIntList, std::move(list), {}}; }
  static OpArg Int(int64_t v) { return {Kind::kInt, {v}, {}}; }
  static OpArg Bool(bool v) { return {Kind::kBool, {v ? 1 : 0}, {}}; }
  static OpArg String(std::string s) { return {Kind::kString, {}, std::move(s)}; }
  static OpArg Other() { return {Kind::kOther, {}, {}}; }
};

// FLOPs of one call of `name` with `args` (positional, as the operator's schema orders them).
// nullopt when the operator has no formula, or its arguments do not fit the formula (missing
// or undefined tensors, mismatched inner dimensions, non-positive output sizes, overflow of
// int64): the caller then treats the call as one without formula.
std::optional<int64_t> OperatorFlops(std::string_view name, const std::vector<OpArg>& args);

// The output shape of one call of an operator with a formula (for following shapes through a
// graph, graph_scan.h): e.g. [N, C_out, H_out, W_out] for conv2d (transposed: (in - 1) * stride
// - 2 * padding + dilation * (kernel - 1) + output_padding + 1), [..., out] for linear, the
// broadcast batch and [n, m] for matmul (1-D operands' dimensions dropped). nullopt when
// OperatorFlops has no count for the call, or a transposed convolution lacks its padding.
std::optional<std::vector<int64_t>> FormulaOutputShape(std::string_view name, const std::vector<OpArg>& args);

}  // namespace torchscan::workloads
