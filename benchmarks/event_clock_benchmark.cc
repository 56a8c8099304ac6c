// The device's block timer against the host clock on a long kernel (issue 43): on a GPU the
// timing pass times each block with CUDA events on the device's stream (devices/cuda_device.h);
// this times the same blocks of back-to-back matrix products both ways, alternating, and
// prints the median of each and their ratio, which should be within about 1 % of 1 where
// launches are a negligible part of a block (scripts/gpu_check.sh records it). On the CPU both
// timers are the host clock, so the ratio says only that the program runs.
//
//   event_clock_benchmark [DEVICE] [--quick]    DEVICE: cpu or cuda:N (default: cuda:0 where a
//                                               GPU is visible, else cpu, said so)
//
// --quick: 256 x 256 products, 3 blocks (on a GPU: 8192 x 8192, 20 blocks).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <ATen/ops/mm.h>
#include <ATen/ops/randn.h>

#include "benchmarks/benchmark_args.h"
#include "core/statistics.h"
#include "devices/device_registry.h"

int main(int argc, char** argv) {
  const bool quick = torchscan::benchmarks::TakeQuickFlag(&argc, argv);
  std::string name = argc > 1 ? argv[1] : "cuda:0";
  absl::StatusOr<std::unique_ptr<torchscan::devices::Device>> opened = torchscan::devices::OpenDevice(name);
  if (!opened.ok() && argc <= 1) {
    std::printf("event_clock: no GPU (%s): the CPU instead\n", std::string(opened.status().message()).c_str());
    name = "cpu";
    opened = torchscan::devices::OpenDevice(name);
  }
  if (!opened.ok()) {
    std::fprintf(stderr, "event_clock_benchmark: %s\n", std::string(opened.status().message()).c_str());
    return 2;
  }
  torchscan::devices::Device& device = **opened;
  const int64_t size = quick ? 256 : (device.is_cuda() ? 8192 : 1024);
  const int blocks = quick ? 3 : 20;
  const at::Tensor a = at::randn({size, size}, at::TensorOptions().device(device.text()));
  const auto block = [&] {
    for (int i = 0; i < 4; ++i) (void)at::mm(a, a);
  };
  block();
  device.Synchronize();
  std::unique_ptr<torchscan::BlockTimer> device_timer = device.NewBlockTimer(torchscan::SteadyClock());
  std::unique_ptr<torchscan::BlockTimer> host_timer = torchscan::HostClockTimer(
      torchscan::SteadyClock(), [&] { device.Synchronize(); }, "host clock");
  std::vector<double> by_device, by_host;
  for (int i = 0; i < blocks; ++i) {
    for (torchscan::BlockTimer* timer : {device_timer.get(), host_timer.get()}) {
      timer->Start();
      block();
      (timer == device_timer.get() ? by_device : by_host).push_back(timer->Stop());
    }
  }
  const double device_s = *torchscan::Quantile(by_device, 0.5), host_s = *torchscan::Quantile(by_host, 0.5);
  std::printf("event_clock: device %s, %d blocks of 4 products %lldx%lld\n", device.text().c_str(), blocks,
              static_cast<long long>(size), static_cast<long long>(size));
  std::printf("event_clock: device timer: %s\n", device_timer->Describe().c_str());
  std::printf("event_clock: median block %.6f s (device timer), %.6f s (host clock), ratio %.4f\n", device_s, host_s,
              host_s > 0 ? device_s / host_s : 0.0);
  return 0;
}
