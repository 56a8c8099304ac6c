#include "workloads/thread_settings.h"

#include <dlfcn.h>

#include <torch/torch.h>

#include "absl/strings/str_format.h"
#include "proto/spec_limits.h"

namespace torchscan::workloads {
namespace {

// OpenBLAS's own thread count, when OpenBLAS is loaded; nothing otherwise (MKL follows
// torch::set_num_threads, reference BLAS has no threads).
void ApplyBlasThreads(int threads) {
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads")); set != nullptr)
    set(threads);
}

}  // namespace

absl::Status ApplyThreadSettings(int intra_op, int inter_op) {
  if (intra_op < 0 || intra_op > kMaxThreads)
    return absl::InvalidArgumentError(absl::StrFormat("threads.intra_op: must be 0 (default) or 1..%d, got %d", kMaxThreads, intra_op));
  if (inter_op < 0 || inter_op > kMaxThreads)
    return absl::InvalidArgumentError(absl::StrFormat("threads.inter_op: must be 0 (default) or 1..%d, got %d", kMaxThreads, inter_op));
  if (intra_op > 0) {
    torch::set_num_threads(intra_op);
    ApplyBlasThreads(intra_op);
  }
  if (inter_op > 0 && inter_op != at::get_num_interop_threads()) {
    try {
      at::set_num_interop_threads(inter_op);
    } catch (const c10::Error&) {
      return absl::FailedPreconditionError(
          "threads.inter_op: LibTorch's inter-op pool already started in this process; set it before any "
          "work, in a fresh process");
    }
  }
  return absl::OkStatus();
}

}  // namespace torchscan::workloads
