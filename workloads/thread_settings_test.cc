#include "workloads/thread_settings.h"

#include <dlfcn.h>

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace torchscan::workloads {
namespace {

TEST(ApplyThreadSettings, BadCountsNameTheField) {
  EXPECT_NE(ApplyThreadSettings(-1, 0).message().find("threads.intra_op"), std::string::npos);
  EXPECT_NE(ApplyThreadSettings(1, 100000).message().find("threads.inter_op"), std::string::npos);
}

// torch::set_num_threads does not reach OpenBLAS's pool (Debian's LibTorch calls it through
// libblas.so.3); ApplyThreadSettings does, whenever OpenBLAS is what got loaded (it is on the
// Debian 12 machines this runs on; elsewhere only LibTorch's count is checked).
TEST(ApplyThreadSettings, IntraOpThreadsReachOpenBlas) {
  using GetThreads = int (*)();
  const auto openblas = reinterpret_cast<GetThreads>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  for (int threads : {2, 1}) {
    ASSERT_TRUE(ApplyThreadSettings(threads, 0).ok());
    EXPECT_EQ(at::get_num_threads(), threads);
    if (openblas != nullptr) {
      EXPECT_EQ(openblas(), threads);
    }
  }
  (void)torch::mm(torch::ones({256, 256}), torch::ones({256, 256}));  // loads BLAS if it was not yet
  if (openblas != nullptr) {
    EXPECT_EQ(openblas(), 1);
  }
}

}  // namespace
}  // namespace torchscan::workloads
