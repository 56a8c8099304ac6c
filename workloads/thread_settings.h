// The process's LibTorch thread counts, set before a workload is built: by the worker's
// experiment and by the RSS child, so that both run what the job says.
#pragma once

#include "absl/status/status.h"

namespace torchscan::workloads {

// Applies intra-op (torch::set_num_threads) and inter-op (at::set_num_interop_threads)
// thread counts. Call it before the workload is constructed. 0 keeps LibTorch's default.
// The intra-op count also goes to OpenBLAS when LibTorch's BLAS is OpenBLAS (found at run
// time: openblas_set_num_threads in the loaded libraries), which torch::set_num_threads does
// not reach: Debian's LibTorch calls BLAS through libblas.so.3, and OpenBLAS's pthread build
// ran a "1 thread" matmul on its own pool (a second thread using 1.6 s of CPU in a 2.5 s
// linear measurement here), so a run said to use one thread took two cores.
// InvalidArgument naming "threads.intra_op"/"threads.inter_op" for a negative count or one
// above kMaxThreads (proto/spec_limits.h); FailedPrecondition naming "threads.inter_op" when inter-op threads were
// already started in this process (LibTorch allows setting them once: use a fresh process).
absl::Status ApplyThreadSettings(int intra_op, int inter_op);

}  // namespace torchscan::workloads
