#include "spec/device_name.h"

#include <gtest/gtest.h>

namespace torchscan::spec {
namespace {

TEST(DeviceName, CpuAndCudaNamesNormalise) {
  for (const char* cpu : {"", "cpu"}) {
    absl::StatusOr<DeviceName> d = ParseDeviceName(cpu);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_FALSE(d->cuda);
    EXPECT_EQ(d->text, "cpu");
  }
  absl::StatusOr<DeviceName> cuda = ParseDeviceName("cuda");
  ASSERT_TRUE(cuda.ok());
  EXPECT_EQ(cuda->text, "cuda:0");
  absl::StatusOr<DeviceName> seven = ParseDeviceName("cuda:7");
  ASSERT_TRUE(seven.ok());
  EXPECT_EQ(seven->index, 7);
  EXPECT_EQ(seven->text, "cuda:7");
  EXPECT_EQ(ParseDeviceName("cuda:0007")->text, "cuda:7");
}

TEST(DeviceName, WhatIsNoDeviceIsRefusedWithTheFix) {
  for (const char* bad : {"cuda:", "cuda:-1", "cuda:x", "cuda:10000", "cuda:1 ", "cuda:+1"})
    EXPECT_NE(ParseDeviceName(bad).status().message().find("write a CUDA device as 'cuda:N'"), std::string::npos)
        << bad;
  EXPECT_EQ(ParseDeviceName("mps").status().message(),
            "device 'mps' cannot be used: MPS (Apple GPUs) is not available in LibTorch builds for this platform; use "
            "device 'cpu'");
  EXPECT_EQ(ParseDeviceName("tpu").status().message(),
            "device 'tpu' cannot be used: unknown device type; use 'cpu' or 'cuda:N'");
  EXPECT_FALSE(ParseDeviceName("CPU").ok());
}

TEST(DeviceName, HostPassesAreForCpuJobsOnly) {
  const DeviceName cpu = *ParseDeviceName("cpu");
  const DeviceName gpu = *ParseDeviceName("cuda:1");
  EXPECT_EQ(PassUnsupportedOn(cpu, "rss"), "");
  EXPECT_EQ(PassUnsupportedOn(cpu, "instructions"), "");
  EXPECT_NE(PassUnsupportedOn(gpu, "rss").find("for CPU jobs only: on cuda:1"), std::string::npos);
  EXPECT_NE(PassUnsupportedOn(gpu, "instructions").find("for CPU jobs only"), std::string::npos);
}

}  // namespace
}  // namespace torchscan::spec
