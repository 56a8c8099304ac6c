#include "passes/frame_groups.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace torchscan::passes {
namespace {

using Names = std::initializer_list<const char*>;

// A function belongs to a group when its name starts with one of the group's prefixes, as a
// whole word ("free" takes "free" and "free_hook", not "freeze"), or holds one of its `contains`
// anywhere.
struct Group {
  const char* name;
  Names prefixes;
  Names contains;
};

const Names kAllocator = {"malloc",
                          "free",
                          "calloc",
                          "realloc",
                          "cfree",
                          "_int_malloc",
                          "_int_free",
                          "__libc_malloc",
                          "__libc_free",
                          "_mid_memalign",
                          "posix_memalign",
                          "memalign",
                          "aligned_alloc",
                          "__posix_memalign",
                          "operator new",
                          "operator delete",
                          "c10::alloc_cpu",
                          "c10::free_cpu",
                          "c10::DefaultCPUAllocator",
                          "c10::ProfiledCPUMemoryReporter",
                          "c10::InefficientStdFunctionContext",
                          "c10::detail::UniqueVoidPtr",
                          "c10::DataPtr",
                          "c10::StorageImpl",
                          "malloc_consolidate",
                          "tcache_",
                          "unlink_chunk",
                          "sysmalloc"};
const Names kInterpreter = {"torch::jit::InterpreterState",
                            "torch::jit::InterpreterStateImpl",
                            "torch::jit::Code",
                            "torch::jit::GraphExecutor",
                            "torch::jit::ProfilingGraphExecutorImpl",
                            "torch::jit::GraphFunction",
                            "torch::jit::Method",
                            "torch::jit::Object",
                            "torch::jit::Module",
                            "torch::jit::(anonymous namespace)",
                            "torch::jit::Stack",
                            "torch::jit::push",
                            "torch::jit::pop",
                            "torch::jit::drop",
                            "torch::jit::peek",
                            "torch::jit::last"};
const Names kDispatcher = {"c10::Dispatcher",
                           "c10::OperatorHandle",
                           "c10::KernelFunction",
                           "c10::BoxedKernel",
                           "c10::impl::",
                           "c10::detail::",
                           "c10::DispatchKeySet",
                           "c10::DispatchKey",
                           "c10::OperatorEntry",
                           "at::_ops::",
                           "torch::autograd::VariableType",
                           "torch::ADInplaceOrView",
                           "at::(anonymous namespace)::wrapper",
                           "at::(anonymous namespace)::(anonymous namespace)::wrapper",
                           "c10::ThreadLocalDebugInfo",
                           "at::RecordFunction",
                           "at::shouldRunRecordFunction",
                           "c10::impl::tls_"};
const Names kDispatcherParts = {"wrap_kernel_functor_unboxed", "make_boxed_from_unboxed_functor", "BoxedKernelWrapper"};
const Names kIValues = {"c10::IValue", "c10::intrusive_ptr", "c10::ivalue::",           "c10::weak_intrusive_ptr",
                        "c10::List",   "c10::Dict",          "c10::raw::intrusive_ptr", "std::vector<c10::IValue"};
const Names kIterator = {"at::TensorIteratorBase",
                         "at::TensorIteratorConfig",
                         "at::TensorIterator",
                         "at::OperandInfo",
                         "at::meta::",
                         "at::(anonymous namespace)::structured_",
                         "at::native::(anonymous namespace)::structured_"};
const Names kMetadata = {"c10::TensorImpl",
                         "c10::SymInt",
                         "c10::impl::SizesAndStrides",
                         "at::TensorBase",
                         "at::Tensor::",
                         "c10::TensorOptions",
                         "c10::SmallVector",
                         "c10::ArrayRef",
                         "c10::VariableVersion",
                         "c10::computeDispatchKey",
                         "at::detail::empty",
                         "at::empty",
                         "at::native::empty",
                         "at::native::resize",
                         "at::native::infer_size",
                         "at::infer_size",
                         "c10::MaybeOwned",
                         "c10::optional",
                         "c10::Scalar",
                         "c10::UndefinedTensorImpl",
                         "at::namedinference",
                         "at::impl::",
                         "c10::ScalarType",
                         "c10::TypeMeta",
                         "caffe2::TypeMeta",
                         "c10::Storage"};
const Names kThreads = {"gomp_",
                        "GOMP_",
                        "omp_",
                        "at::parallel_for",
                        "at::internal::",
                        "at::init_num_threads",
                        "at::get_num_threads",
                        "blas_thread",
                        "exec_blas",
                        "pthread",
                        "__pthread",
                        "futex",
                        "__lll",
                        "sched_yield"};
const Names kLinker = {"_dl_", "do_lookup_x", "check_match", "_dl_runtime_resolve"};

// First match wins; the order puts narrow groups before broad ones.
const Group kGroups[] = {
    {"[allocator]", kAllocator, {}},
    {"[TorchScript interpreter]", kInterpreter, {}},
    {"[dispatcher and boxing]", kDispatcher, kDispatcherParts},
    {"[IValues and reference counts]", kIValues, {}},
    {"[TensorIterator set-up]", kIterator, {}},
    {"[tensor metadata]", kMetadata, {}},
    {"[thread pool and OpenMP]", kThreads, {}},
    {"[dynamic linker]", kLinker, {}},
};

bool StartsWithWord(absl::string_view name, absl::string_view prefix) {
  if (!absl::StartsWith(name, prefix)) return false;
  if (name.size() == prefix.size() || !absl::ascii_isalnum(prefix.back())) return true;
  return !absl::ascii_isalnum(name[prefix.size()]);
}

}  // namespace

std::string FrameGroup(absl::string_view name) {
  for (const Group& group : kGroups) {
    for (const char* prefix : group.prefixes)
      if (StartsWithWord(name, prefix)) return group.name;
    for (const char* part : group.contains)
      if (absl::StrContains(name, part)) return group.name;
  }
  return "";
}

}  // namespace torchscan::passes
