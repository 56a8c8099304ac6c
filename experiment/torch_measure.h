// measure_latency for LibTorch workloads: the torch-free runner (core/latency_runner.h)
// plus what only LibTorch knows: thread counts, device synchronisation, the environment's
// LibTorch/BLAS/CUDA facts and tensor metadata. The header needs no LibTorch.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/latency_runner.h"
#include "devices/device.h"
#include "proto/report.pb.h"

namespace at {
class Tensor;
}

namespace torchscan::experiment {

struct TorchLatencyOptions {
  LatencyOptions timing;  // see core/latency_runner.h; work_units/work_unit included
  // "cpu" or "cuda:N" (devices/device_registry.h); each block is timed by the device's timer
  // (devices/device.h: CUDA events on a GPU).
  std::string device = "cpu";
  std::string name;                             // the report's name, e.g. "baseline"
  v1::InputMetadata input_metadata;             // caller-supplied; see DescribeTensors
  std::map<std::string, std::string> workload;  // what ran: model, execution mode ...
  // Called after each timed block with the number of blocks done (LatencyHooks::on_block).
  // Default: none.
  std::function<void(const v1::TimingBlock&, int64_t blocks_done)> on_block;
};

// A run timed in rounds (core/round_plan.h): the device checked and the runner made once;
// the first TimeRound warms up and sizes the block, every later one keeps that block size;
// Finish makes one report of all the rounds' blocks, as MeasureTorchLatency's. Exceptions
// from `call` propagate from TimeRound. Not copyable; `call` must outlive the session.
class TorchTimingSession {
 public:
  // InvalidArgument for bad options or an unusable device.
  static absl::StatusOr<std::unique_ptr<TorchTimingSession>> Start(const std::function<void()>& call,
                                                                   const TorchLatencyOptions& options);
  // Warm-up and block sizing, once (later calls do nothing). Returns the sized block's seconds
  // (0 with fixed_calls_per_block), which a round plan may use (core/round_plan.h).
  double Prepare();
  // Prepare if not yet done, then LatencyRunner::RunRound. Returns the index of the round's
  // first block and how many it added.
  std::pair<int64_t, int64_t> TimeRound(double min_time_s, int min_blocks, double max_time_s);
  int64_t calls_per_block() const { return runner_.calls_per_block(); }
  // After Prepare, before any round: blocks of `calls` calls instead (>= 1).
  void SetCallsPerBlock(int64_t calls) { runner_.SetCallsPerBlock(calls); }
  double timed_s() const { return runner_.timed_s(); }                             // timed work of every round so far
  const std::vector<v1::TimingBlock>& blocks() const { return runner_.blocks(); }  // every block so far
  // The report of every block timed so far (settings, environment, inputs, timing, warnings;
  // on a GPU also the noise its driver saw between the first block and now:
  // devices/device_noise.h's gpu_clock_changed, gpu_throttled, gpu_shared).
  v1::BenchmarkReport Finish() const;

 private:
  TorchTimingSession(const std::function<void()>& call, TorchLatencyOptions options, LatencyOptions timing,
                     LatencyHooks hooks, std::shared_ptr<devices::Device> device);
  TorchLatencyOptions options_;
  std::shared_ptr<devices::Device> device_;
  std::optional<devices::DeviceState> state_before_;  // the device's, before the first block
  LatencyOptions timing_;
  LatencyRunner runner_;
  bool sized_ = false;
};

// Runs the timing pass (a session of one round) and returns a complete report: settings (device, threads as now
// applied, timing, what timing excludes), environment (core/environment.h and
// experiment/torch_environment.h), input metadata, timing, warnings. InvalidArgument for bad
// options or an unusable device; exceptions from `call` propagate.
absl::StatusOr<v1::BenchmarkReport> MeasureTorchLatency(const std::function<void()>& call,
                                                        const TorchLatencyOptions& options);

// Shape, dtype and device of each tensor, named name[0], name[1] ... (or `name` for one).
std::vector<v1::TensorInfo> DescribeTensors(const std::vector<at::Tensor>& tensors, const std::string& name);

}  // namespace torchscan::experiment
