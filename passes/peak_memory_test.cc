#include "passes/peak_memory.h"

#include <functional>
#include <memory>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "devices/device_registry.h"
#include "workloads/workload.h"

namespace torchscan::passes {
namespace {

using torchscan::v1::MetricResult;

constexpr int64_t kMiB = 1 << 20;
constexpr int64_t kFloatsPerMiB = kMiB / 4;

devices::Device& Cpu() {
  static devices::Device* const cpu = devices::OpenDevice("cpu")->release();
  return *cpu;
}

const MetricResult& Get(const std::vector<MetricResult>& metrics, const std::string& name) {
  for (const MetricResult& m : metrics) {
    if (m.name() == name) return m;
  }
  static const MetricResult missing;
  ADD_FAILURE() << "no metric " << name;
  return missing;
}

TEST(MeasurePeakMemory, KnownAllocationOnTopOfAResidentTensor) {
  const torch::Tensor resident = torch::ones({kFloatsPerMiB});  // 1 MiB already resident
  const auto metrics = MeasurePeakMemory([] { return c10::IValue(torch::empty({kFloatsPerMiB})); }, Cpu(), {resident});
  ASSERT_EQ(metrics.size(), 3u);
  EXPECT_EQ(Get(metrics, "tensor_baseline_bytes").value(), kMiB);
  EXPECT_EQ(Get(metrics, "tensor_peak_bytes").value(), 2 * kMiB);
  EXPECT_EQ(Get(metrics, "tensor_delta_bytes").value(), kMiB);
  for (const MetricResult& m : metrics) {
    EXPECT_TRUE(m.complete());
    EXPECT_EQ(m.unit(), "bytes");
    EXPECT_FALSE(m.method().empty());
    EXPECT_FALSE(m.scope().empty());
    EXPECT_EQ(m.diagnostics_size(), 0);
  }
  EXPECT_NE(Get(metrics, "tensor_peak_bytes").method().find("MemoryReportingInfoBase"), std::string::npos);
}

TEST(MeasurePeakMemory, PeakIsTheHighestRunningTotalNotTheSum) {
  // 1 MiB temporary freed before a 0.5 MiB output: the peak increment is 1 MiB.
  const auto freed = MeasurePeakMemory(
      [] {
        { torch::Tensor temporary = torch::empty({kFloatsPerMiB}); }
        return c10::IValue(torch::empty({kFloatsPerMiB / 2}));
      },
      Cpu());
  EXPECT_EQ(Get(freed, "tensor_delta_bytes").value(), kMiB);
  EXPECT_EQ(Get(freed, "tensor_baseline_bytes").value(), 0);
  // Both alive at once: 1.5 MiB.
  const auto both = MeasurePeakMemory(
      [] {
        torch::Tensor a = torch::empty({kFloatsPerMiB});
        torch::Tensor b = torch::empty({kFloatsPerMiB / 2});
        return c10::IValue(a);
      },
      Cpu());
  EXPECT_EQ(Get(both, "tensor_delta_bytes").value(), kMiB + kMiB / 2);
}

TEST(MeasurePeakMemory, BaselineCountsEachStorageOnce) {
  const torch::Tensor t = torch::zeros({kFloatsPerMiB});
  const auto metrics =
      MeasurePeakMemory([] { return c10::IValue(); }, Cpu(), {t, t.view({2, -1}), t.slice(0, 0, 10), torch::Tensor()});
  EXPECT_EQ(Get(metrics, "tensor_baseline_bytes").value(), kMiB);
  EXPECT_EQ(Get(metrics, "tensor_delta_bytes").value(), 0);
  EXPECT_EQ(Get(metrics, "tensor_peak_bytes").value(), kMiB);
}

TEST(MeasurePeakMemory, LinearWorkload) {
  torchscan::v1::WorkloadSpec spec;
  spec.mutable_model()->set_builtin(torchscan::v1::ModelSpec::linear);
  const auto workload = workloads::BuildWorkload(spec);
  ASSERT_TRUE(workload.ok()) << workload.status();
  const auto metrics = MeasurePeakMemory(workload->call, *workload->device, workload->resident_tensors);
  // Resident: weight 128x128 + bias 128 + input 32x128 float32 = (16384 + 128 + 4096) * 4.
  EXPECT_EQ(Get(metrics, "tensor_baseline_bytes").value(), 82432);
  // At least the 32x128 float32 output.
  EXPECT_GE(Get(metrics, "tensor_delta_bytes").value(), 16384);
  std::printf("linear: tensor delta %.0f bytes\n", Get(metrics, "tensor_delta_bytes").value());
}

TEST(MeasurePeakMemory, FailuresGiveUnknownMetricsWithTheReason) {
  const auto failing = MeasurePeakMemory(
      []() -> c10::IValue {
        TORCH_CHECK(false, "expected 4 dims");
        return {};
      },
      Cpu());
  ASSERT_EQ(failing.size(), 3u);
  for (const MetricResult& m : failing) {
    EXPECT_FALSE(m.has_value());
    EXPECT_FALSE(m.complete());
    EXPECT_NE(m.diagnostics(0).find("expected 4 dims"), std::string::npos);
  }
  const auto empty = MeasurePeakMemory({}, Cpu());
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_FALSE(empty[0].has_value());
}

// A GPU's peaks are its allocator's, as the device reads them around the call (the CUDA device's
// own sequence is devices/cuda_device_test.cc's); here a fake GPU device.
class FakeGpu : public devices::Device {
 public:
  FakeGpu() : Device(spec::DeviceName{true, 1, "cuda:1"}) {}
  void Synchronize() override {}
  std::unique_ptr<BlockTimer> NewBlockTimer(Clock* host) override { return HostClockTimer(host, nullptr, "none"); }
  devices::MemoryPeaks PeakOfCall(const std::function<void()>& call) override {
    call();
    ++calls;
    return devices::MemoryPeaks{3 * kMiB, 4 * kMiB};
  }
  void Describe(v1::Environment*) override {}
  int calls = 0;
};

TEST(MeasurePeakMemory, AGpuReportsItsAllocatorsPeaks) {
  FakeGpu gpu;
  const auto metrics = MeasurePeakMemory([] { return c10::IValue(); }, gpu);
  EXPECT_EQ(gpu.calls, 1);
  ASSERT_EQ(metrics.size(), 2u);
  EXPECT_EQ(Get(metrics, "cuda_allocator_peak_allocated_bytes").value(), 3 * kMiB);
  EXPECT_EQ(Get(metrics, "cuda_allocator_peak_reserved_bytes").value(), 4 * kMiB);
  EXPECT_NE(metrics[0].scope().find("one call on cuda:1"), std::string::npos) << metrics[0].scope();
  for (const MetricResult& m : metrics) EXPECT_TRUE(m.complete());
}

}  // namespace
}  // namespace torchscan::passes
