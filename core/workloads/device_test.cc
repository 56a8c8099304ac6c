#include "core/workloads/device.h"

#include <gtest/gtest.h>

#include "libtorch_build_info.h"

namespace torchscan::workloads {
namespace {

bool Contains(const absl::Status& s, absl::string_view text) {
  return s.message().find(text) != absl::string_view::npos;
}

TEST(ResolveDevice, CpuIsTheDefault) {
  for (const char* name : {"", "cpu"}) {
    const auto d = ResolveDevice(name);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ(d->name, "cpu");
    EXPECT_FALSE(d->cuda);
  }
}

TEST(ResolveDevice, MpsIsRefusedNamingTheDevice) {
  const auto d = ResolveDevice("mps");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(d.status(), "'mps'"));
  EXPECT_TRUE(Contains(d.status(), "MPS"));
}

TEST(ResolveDevice, CudaNeedsACudaBuildAndDevice) {
  const auto d = ResolveDevice("cuda:0");
#if TORCHSCAN_LIBTORCH_CUDA
  if (d.ok()) {
    EXPECT_EQ(d->name, "cuda:0");
    EXPECT_TRUE(d->cuda);
    EXPECT_EQ(d->index, 0);
  } else {
    EXPECT_TRUE(Contains(d.status(), "'cuda:0'"));
  }
  EXPECT_FALSE(ResolveDevice("cuda:4096").ok());
#else
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(d.status(), "'cuda:0'"));
  EXPECT_TRUE(Contains(d.status(), "CPU-only"));
#endif
}

TEST(ResolveDevice, MalformedAndUnknownDevices) {
  for (const char* name : {"cuda:", "cuda:x", "cuda:-1", "cuda:1a", "tpu", "CPU"}) {
    const auto d = ResolveDevice(name);
    ASSERT_FALSE(d.ok()) << name;
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(d.status(), std::string("'") + name + "'")) << d.status();
  }
}

}  // namespace
}  // namespace torchscan::workloads
