// The timing pass: torch.utils.benchmark's blocked_autorange, as a small runner with phase
// verbs. No LibTorch here: the callable and an optional device synchronisation are given.
//
//   WarmUp()    untimed calls for warmup_time_s (at least one call)
//   SizeBlock() calls per block, grown x10 from 1 until the clock overhead is <= 1e-4 of a
//               block and a block lasts >= min_run_time_s / 1000 (or exceeds min_run_time_s)
//   RunBlocks() timed blocks until min_run_time_s of timed work has passed and at least
//               min_blocks blocks exist (or max_run_time_s, when set, has passed)
//   Finish()    the Timing message (every raw block, per-call statistics, throughput) and
//               warnings as data
//
// Per-call times are block duration / calls; quartiles use kQuantileMethod. A block's duration
// is its BlockTimer's (core/block_timer.h): the host clock unless the device gives another.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/block_timer.h"
#include "core/clock.h"
#include "proto/report.pb.h"
#include "proto/spec_limits.h"

namespace torchscan {

struct LatencyOptions {
  // Blocks run until this much timed work has passed. Default kDefaultMinRunTimeS
  // (proto/spec_limits.h: torch's blocked_autorange).
  double min_run_time_s = kDefaultMinRunTimeS;
  // ...and until at least this many blocks exist. Default kDefaultMinBlocks.
  int min_blocks = kDefaultMinBlocks;
  // 0 (default): no limit. Otherwise no new block starts after this much timed work, even
  // below min_blocks; the report then carries a "few_blocks" warning.
  double max_run_time_s = 0;
  // Untimed warm-up before block sizing. Default 0.05 s; at least one call always runs.
  double warmup_time_s = 0.05;
  // 0 (default): sized automatically. Otherwise every block makes exactly this many calls.
  int64_t fixed_calls_per_block = 0;
  // Units of work per call and their name, for throughput = work_units / median ("samples").
  double work_units = 1;
  std::string work_unit = "calls";
  // How the device is synchronised at block ends, recorded in the settings ("none" on CPU).
  std::string synchronization = "none";
};

// InvalidArgument naming the field and the accepted range, or OK.
absl::Status ValidateLatencyOptions(const LatencyOptions& options);

// What a report records of these options.
v1::TimingSettings ToTimingSettings(const LatencyOptions& options, const Clock& clock);

struct LatencyHooks {
  // Times each block and waits for the device after warm-up (devices/device.h gives each
  // device's). Default: the runner's clock, no synchronisation.
  std::shared_ptr<BlockTimer> timer;
  // Called after each timed block with the block and the number of blocks done.
  std::function<void(const v1::TimingBlock&, int64_t blocks_done)> on_block;
};

class LatencyRunner {
 public:
  // `call` and `clock` must outlive the runner; options must be valid.
  LatencyRunner(std::function<void()> call, LatencyOptions options, Clock* clock, LatencyHooks hooks = {});

  void WarmUp();
  int64_t SizeBlock();
  // RunRound(min_run_time_s, min_blocks, max_run_time_s) of the options: a single pass.
  void RunBlocks();
  // One round of a run timed in rounds (core/round_plan.h): timed blocks of the size chosen
  // by SizeBlock until `min_time_s` of timed work has passed in this round and it has at
  // least `min_blocks` blocks (or `max_time_s`, when > 0, has passed in this round). Blocks
  // are appended to the run's; on_block counts the blocks of this round. Returns how many
  // blocks it added. Call SizeBlock first.
  int64_t RunRound(double min_time_s, int min_blocks, double max_time_s);
  int64_t blocks_done() const { return static_cast<int64_t>(blocks_.size()); }
  const std::vector<v1::TimingBlock>& blocks() const { return blocks_; }  // every block so far
  // Seconds of the last block SizeBlock timed (the chosen size); 0 with fixed_calls_per_block.
  double sized_block_s() const { return sized_block_s_; }
  // Timed work of every block so far.
  double timed_s() const { return timed_s_; }
  int64_t calls_per_block() const { return calls_per_block_; }
  // Replaces the size SizeBlock chose (>= 1), before any block is timed: core/round_plan.h
  // EqualCalls gives both runs of a comparison the same calls per block.
  void SetCallsPerBlock(int64_t calls) { calls_per_block_ = calls < 1 ? 1 : calls; }
  // The timing and any warnings ("high_iqr", "few_blocks") appended to `warnings`.
  v1::Timing Finish(google::protobuf::RepeatedPtrField<v1::Warning>* warnings) const;

 private:
  double TimeCalls(int64_t calls);

  std::function<void()> call_;
  LatencyOptions options_;
  Clock* clock_;
  LatencyHooks hooks_;  // hooks_.timer is never null
  int64_t warmup_calls_ = 0;
  int64_t calls_per_block_ = 0;
  double sized_block_s_ = 0;
  double timed_s_ = 0;
  std::vector<v1::TimingBlock> blocks_;
};

// Validates options, runs every phase and returns a report holding settings.timing,
// timing, work_units, work_unit and warnings (the caller adds environment, threads,
// inputs). Exceptions thrown by `call` propagate unchanged.
absl::StatusOr<v1::BenchmarkReport> MeasureLatency(const std::function<void()>& call, const LatencyOptions& options,
                                                   Clock* clock = SteadyClock(), const LatencyHooks& hooks = {});

// Statistics of per-call times over `blocks`, stated in the header of statistics.h.
// Empty blocks give an all-zero summary with block_count 0.
v1::TimingSummary SummarizeBlocks(const google::protobuf::RepeatedPtrField<v1::TimingBlock>& blocks);

// Per-call times (duration / calls) of each block, in order.
std::vector<double> PerCallTimes(const google::protobuf::RepeatedPtrField<v1::TimingBlock>& blocks);

}  // namespace torchscan
