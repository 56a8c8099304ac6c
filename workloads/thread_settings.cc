#include "workloads/thread_settings.h"

#include <dlfcn.h>

#include <torch/torch.h>

#include "proto/spec_limits.h"
#include "spec/field_rules.h"

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
  if (absl::Status s = spec::CheckThreadCount("threads.intra_op", intra_op, kMaxThreads, true); !s.ok()) return s;
  if (absl::Status s = spec::CheckThreadCount("threads.inter_op", inter_op, kMaxThreads, true); !s.ok()) return s;
  if (intra_op > 0) {
    torch::set_num_threads(intra_op);
    ApplyBlasThreads(intra_op);
  }
  if (inter_op > 0 && inter_op != static_cast<int>(at::get_num_interop_threads())) {
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
