// The CUDA device's logic with a fake runtime, on any machine: which device index it waits
// for, when it times with events, how it reads allocator peaks, and its refusals.
#include "devices/cuda_device.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/fake_clock.h"
#include "core/latency_runner.h"

namespace torchscan::devices {
namespace {

// Records every call as text ("sync 1", "start", "end", "reset 1", ...) and gives each event
// pair `elapsed_s`.
class FakeRuntime : public GpuRuntime {
 public:
  absl::Status Load() override { return load; }
  int DeviceCount() override { return devices; }
  void Synchronize(int index) override { log.push_back("sync " + std::to_string(index)); }
  std::unique_ptr<GpuEvents> NewEvents(int index) override {
    if (!has_events) return nullptr;
    log.push_back("events " + std::to_string(index));
    return std::make_unique<Events>(this);
  }
  void ResetPeaks(int index) override { log.push_back("reset " + std::to_string(index)); }
  MemoryPeaks Peaks(int index) override {
    log.push_back("peaks " + std::to_string(index));
    return MemoryPeaks{1000, 4096};
  }
  void Describe(int index, v1::Environment* env) override { env->set_device_name("Fake GPU " + std::to_string(index)); }
  DeviceState State(int index) override {
    log.push_back("state " + std::to_string(index));
    return DeviceState{1410, 0, 0};
  }

  absl::Status load = absl::OkStatus();
  int devices = 2;
  bool has_events = true;
  double elapsed_s = 0.004;
  std::vector<std::string> log;

 private:
  class Events : public GpuEvents {
   public:
    explicit Events(FakeRuntime* runtime) : runtime_(runtime) {}
    void RecordStart() override { runtime_->log.push_back("start"); }
    void RecordEnd() override { runtime_->log.push_back("end"); }
    double ElapsedSeconds() override {
      runtime_->log.push_back("elapsed");
      return runtime_->elapsed_s;
    }

   private:
    FakeRuntime* runtime_;
  };
};

std::unique_ptr<Device> Open(const std::string& name, const std::shared_ptr<FakeRuntime>& runtime) {
  absl::StatusOr<spec::DeviceName> parsed = spec::ParseDeviceName(name);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<std::unique_ptr<Device>> device = OpenCudaDevice(*parsed, runtime);
  EXPECT_TRUE(device.ok()) << device.status();
  return device.ok() ? std::move(*device) : nullptr;
}

// The bug the issue names: synchronising the current device (0) while the job runs on cuda:1.
TEST(CudaDevice, SynchronizesItsOwnIndexNotTheCurrentDevice) {
  auto runtime = std::make_shared<FakeRuntime>();
  std::unique_ptr<Device> device = Open("cuda:1", runtime);
  ASSERT_NE(device, nullptr);
  device->Synchronize();
  EXPECT_EQ(runtime->log, (std::vector<std::string>{"sync 1"}));
}

// Each timed block is a pair of events on the device's stream; the block's duration is the
// events' elapsed time, not the host clock's; warm-up ends with a synchronize of the device.
TEST(CudaDevice, TimesEveryBlockWithEventsWhenTheRuntimeHasThem) {
  auto runtime = std::make_shared<FakeRuntime>();
  std::unique_ptr<Device> device = Open("cuda:1", runtime);
  ASSERT_NE(device, nullptr);
  FakeClock clock;
  LatencyHooks hooks;
  hooks.timer = device->NewBlockTimer(&clock);
  EXPECT_NE(hooks.timer->Describe().find("CUDA events on cuda:1"), std::string::npos) << hooks.timer->Describe();
  LatencyOptions options;
  options.warmup_time_s = 0;
  options.fixed_calls_per_block = 3;
  options.min_run_time_s = 0.04;
  int calls = 0;
  absl::StatusOr<v1::BenchmarkReport> r = MeasureLatency(
      [&] {
        ++calls;
        clock.Advance(0.0001);  // the host's launch time, not the kernels'
      },
      options, &clock, hooks);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->timing().blocks_size(), 10);
  for (const v1::TimingBlock& b : r->timing().blocks()) EXPECT_DOUBLE_EQ(b.duration_s(), 0.004);
  std::vector<std::string> expected = {"events 1", "sync 1"};  // the timer, then the warm-up's wait
  for (int i = 0; i < 10; ++i) expected.insert(expected.end(), {"start", "end", "elapsed"});
  EXPECT_EQ(runtime->log, expected);
  EXPECT_EQ(calls, 1 + 30);
}

// Without events the host clock times each block around a synchronize of the job's device.
TEST(CudaDevice, WithoutEventsEveryBlockEndsWithASynchronizeOfItsDevice) {
  auto runtime = std::make_shared<FakeRuntime>();
  runtime->has_events = false;
  std::unique_ptr<Device> device = Open("cuda:1", runtime);
  ASSERT_NE(device, nullptr);
  FakeClock clock;
  std::unique_ptr<BlockTimer> timer = device->NewBlockTimer(&clock);
  EXPECT_NE(timer->Describe().find("host clock around a synchronize of cuda:1"), std::string::npos)
      << timer->Describe();
  timer->Start();
  clock.Advance(0.5);
  EXPECT_DOUBLE_EQ(timer->Stop(), 0.5);
  EXPECT_EQ(runtime->log, (std::vector<std::string>{"sync 1"}));
}

// The allocator's peaks of the call alone: queued work finished before the reset and after
// the call, all on the job's device.
TEST(CudaDevice, ThePeakOfACallResetsAndReadsItsDevicesAllocator) {
  auto runtime = std::make_shared<FakeRuntime>();
  std::unique_ptr<Device> device = Open("cuda:1", runtime);
  ASSERT_NE(device, nullptr);
  const MemoryPeaks peaks = device->PeakOfCall([&] { runtime->log.push_back("call"); });
  EXPECT_EQ(runtime->log, (std::vector<std::string>{"sync 1", "reset 1", "call", "sync 1", "peaks 1"}));
  EXPECT_EQ(peaks.allocated_bytes, 1000);
  EXPECT_EQ(peaks.reserved_bytes, 4096);
  v1::Environment env;
  device->Describe(&env);
  EXPECT_EQ(env.device_name(), "Fake GPU 1");
  runtime->log.clear();
  ASSERT_TRUE(device->State().has_value());
  EXPECT_EQ(device->State()->sm_clock_mhz, 1410);
  EXPECT_EQ(runtime->log, (std::vector<std::string>{"state 1", "state 1"}));
}

TEST(CudaDevice, APinnedWorkerDrivesTheJobsGpuByItsOwnOrdinal) {
  // The daemon gave this worker its cuda:1 and cuda:3 (CUDA_VISIBLE_DEVICES): its runtime calls them 0 and 1.
  auto runtime = std::make_shared<FakeRuntime>();
  absl::StatusOr<std::unique_ptr<Device>> device = OpenCudaDevice({true, 3, "cuda:3"}, runtime, "1,3");
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ((*device)->text(), "cuda:3");
  EXPECT_EQ((*device)->local_text(), "cuda:1");
  (*device)->Synchronize();
  EXPECT_EQ(runtime->log, (std::vector<std::string>{"sync 1"}));
  absl::StatusOr<std::unique_ptr<Device>> other = OpenCudaDevice({true, 0, "cuda:0"}, runtime, "1,3");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("only cuda:1, cuda:3 (TORCHSCAN_PINNED_GPUS)"), std::string::npos)
      << other.status();
}

TEST(CudaDevice, RefusalsSayWhyAndTheFix) {
  const spec::DeviceName cuda2{true, 2, "cuda:2"};
  auto runtime = std::make_shared<FakeRuntime>();
  absl::StatusOr<std::unique_ptr<Device>> d = OpenCudaDevice(cuda2, runtime);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(d.status().message(), "device 'cuda:2' cannot be used: only 2 CUDA device(s) are visible (cuda:0..cuda:1)");
  runtime->devices = 0;
  d = OpenCudaDevice(cuda2, runtime);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("no CUDA device is visible"), std::string::npos) << d.status();
  runtime->load = absl::FailedPreconditionError("CUDA support: cannot load libtorch_cuda.so");
  d = OpenCudaDevice(cuda2, runtime);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(), "device 'cuda:2' cannot be used: CUDA support: cannot load libtorch_cuda.so");
}

}  // namespace
}  // namespace torchscan::devices
