// Which operators carry counted FLOPs: the table behind the FLOP convention of
// flop_formulas.h. Pure (no LibTorch), a lookup by the operator's name as RecordFunction and
// the TorchScript graph report it ("aten::addmm", "prim::mkldnn_convolution").
//
// kFormula: the operators OperatorFlops (flop_formulas.h) has a formula for: matrix products and
// convolutions. kNotCounted: 0 FLOPs by the convention (elementwise, activation, normalisation,
// softmax, pooling, reduction, embedding, view and copy operators). kUnknown: every other
// name; it may carry compute that is not counted, so the profiler lists it in the diagnostics
// and marks the total a lower bound.
#pragma once

#include <string_view>

namespace torchscan::workloads {

enum class FlopClass {
  kFormula,     // OperatorFlops knows this operator
  kNotCounted,  // 0 FLOPs by the convention above (elementwise, views, norms, ...)
  kUnknown,     // no formula: may carry compute that is not counted
};

// How `name` (e.g. "aten::addmm", as RecordFunction reports it) is treated. Never fails.
FlopClass ClassifyOperator(std::string_view name);

}  // namespace torchscan::workloads
