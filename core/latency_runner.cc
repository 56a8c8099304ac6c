#include "core/latency_runner.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_format.h"
#include "core/spread_cause.h"
#include "core/statistics.h"

namespace torchscan {
namespace {

constexpr double kMaxRelativeOverhead = 1e-4;  // torch.utils.benchmark's threshold
constexpr int64_t kMaxCallsPerBlock = int64_t{1} << 40;

absl::Status FieldError(const char* field, const std::string& fix) {
  return absl::InvalidArgumentError(absl::StrFormat("%s: %s", field, fix));
}

}  // namespace

absl::Status ValidateLatencyOptions(const LatencyOptions& o) {
  if (!(o.min_run_time_s > 0) || !std::isfinite(o.min_run_time_s))
    return FieldError("min_run_time_s",
                      absl::StrFormat("must be a positive number of seconds, got %g", o.min_run_time_s));
  if (o.min_blocks < 1) return FieldError("min_blocks", absl::StrFormat("must be at least 1, got %d", o.min_blocks));
  if (!(o.max_run_time_s >= 0) || !std::isfinite(o.max_run_time_s))
    return FieldError("max_run_time_s", absl::StrFormat("must be 0 (no limit) or a positive number of seconds, got %g",
                                                        o.max_run_time_s));
  if (o.max_run_time_s > 0 && o.max_run_time_s < o.min_run_time_s)
    return FieldError("max_run_time_s", absl::StrFormat("must be 0 or at least min_run_time_s (%g), got %g",
                                                        o.min_run_time_s, o.max_run_time_s));
  if (!(o.warmup_time_s >= 0) || !std::isfinite(o.warmup_time_s))
    return FieldError("warmup_time_s",
                      absl::StrFormat("must be 0 or a positive number of seconds, got %g", o.warmup_time_s));
  if (o.fixed_calls_per_block < 0 || o.fixed_calls_per_block > kMaxCallsPerBlock)
    return FieldError("fixed_calls_per_block", absl::StrFormat("must be 0 (automatic) or 1..%d, got %d",
                                                               kMaxCallsPerBlock, o.fixed_calls_per_block));
  if (!(o.work_units > 0) || !std::isfinite(o.work_units))
    return FieldError("work_units",
                      absl::StrFormat("must be a positive number of units per call, got %g", o.work_units));
  if (o.work_unit.empty()) return FieldError("work_unit", "must name the unit of work, e.g. \"samples\"");
  return absl::OkStatus();
}

v1::TimingSettings ToTimingSettings(const LatencyOptions& o, const Clock& clock) {
  v1::TimingSettings s;
  s.set_min_run_time_s(o.min_run_time_s);
  s.set_min_blocks(o.min_blocks);
  s.set_max_run_time_s(o.max_run_time_s);
  s.set_warmup_time_s(o.warmup_time_s);
  s.set_fixed_calls_per_block(o.fixed_calls_per_block);
  s.set_clock(clock.Name());
  s.set_synchronization(o.synchronization);
  return s;
}

LatencyRunner::LatencyRunner(std::function<void()> call, LatencyOptions options, Clock* clock, LatencyHooks hooks)
    : call_(std::move(call)), options_(std::move(options)), clock_(clock), hooks_(std::move(hooks)) {
  if (!hooks_.timer) hooks_.timer = HostClockTimer(clock_, nullptr, options_.synchronization);
}

double LatencyRunner::TimeCalls(int64_t calls) {
  hooks_.timer->Start();
  for (int64_t i = 0; i < calls; ++i) call_();
  return hooks_.timer->Stop();
}

void LatencyRunner::WarmUp() {
  const double start = clock_->NowSeconds();
  do {
    call_();
    ++warmup_calls_;
  } while (clock_->NowSeconds() - start < options_.warmup_time_s);
  hooks_.timer->Wait();
}

int64_t LatencyRunner::SizeBlock() {
  if (options_.fixed_calls_per_block > 0) return calls_per_block_ = options_.fixed_calls_per_block;
  std::vector<double> overheads;
  for (int i = 0; i < 5; ++i) overheads.push_back(TimeCalls(0));
  const double overhead = *Quantile(overheads, 0.5);
  int64_t calls = 1;
  while (true) {
    const double taken = TimeCalls(calls);
    sized_block_s_ = taken;
    if (taken > 0 && overhead / taken <= kMaxRelativeOverhead && taken >= options_.min_run_time_s / 1000) break;
    if (taken > options_.min_run_time_s || calls * 10 > kMaxCallsPerBlock) break;
    calls *= 10;
  }
  return calls_per_block_ = calls;
}

void LatencyRunner::RunBlocks() { RunRound(options_.min_run_time_s, options_.min_blocks, options_.max_run_time_s); }

int64_t LatencyRunner::RunRound(double min_time_s, int min_blocks, double max_time_s) {
  double timed = 0;
  int64_t added = 0;
  const auto enough = [&] {
    if (max_time_s > 0 && timed >= max_time_s) return true;
    return timed >= min_time_s && added >= min_blocks;
  };
  while (!enough()) {
    v1::TimingBlock block;
    block.set_calls(calls_per_block_);
    block.set_duration_s(TimeCalls(calls_per_block_));
    timed += block.duration_s();
    timed_s_ += block.duration_s();
    blocks_.push_back(block);
    ++added;
    if (hooks_.on_block) hooks_.on_block(block, added);
  }
  return added;
}

v1::Timing LatencyRunner::Finish(google::protobuf::RepeatedPtrField<v1::Warning>* warnings) const {
  v1::Timing timing;
  timing.set_calls_per_block(calls_per_block_);
  timing.set_warmup_calls(warmup_calls_);
  double timed = 0;
  for (const v1::TimingBlock& block : blocks_) {
    *timing.add_blocks() = block;
    timed += block.duration_s();
  }
  timing.set_timed_total_s(timed);
  *timing.mutable_summary() = SummarizeBlocks(timing.blocks());
  const double median = timing.summary().median_s();
  timing.set_throughput(median > 0 ? options_.work_units / median : std::numeric_limits<double>::infinity());
  timing.set_throughput_unit(options_.work_unit + "/s");

  SetHighIqrWarning(timing, warnings);
  if (static_cast<int>(blocks_.size()) < options_.min_blocks) {
    v1::Warning* w = warnings->Add();
    w->set_code("few_blocks");
    w->set_message(absl::StrFormat(
        "only %d blocks (min_blocks %d): max_run_time_s %g s stopped the run; quartiles are unreliable; raise "
        "max_run_time_s (a job file's options) or use a shorter workload",
        blocks_.size(), options_.min_blocks, options_.max_run_time_s));
  }
  return timing;
}

std::vector<double> PerCallTimes(const google::protobuf::RepeatedPtrField<v1::TimingBlock>& blocks) {
  std::vector<double> times;
  times.reserve(blocks.size());
  for (const v1::TimingBlock& b : blocks) times.push_back(b.calls() > 0 ? b.duration_s() / b.calls() : 0.0);
  return times;
}

v1::TimingSummary SummarizeBlocks(const google::protobuf::RepeatedPtrField<v1::TimingBlock>& blocks) {
  v1::TimingSummary out;
  out.set_quantile_method(kQuantileMethod);
  const std::optional<Summary> s = Summarize(PerCallTimes(blocks));
  if (!s) return out;
  out.set_median_s(s->median);
  out.set_q1_s(s->q1);
  out.set_q3_s(s->q3);
  out.set_iqr_s(s->iqr);
  out.set_mean_s(s->mean);
  out.set_min_s(s->min);
  out.set_max_s(s->max);
  out.set_block_count(s->count);
  int64_t calls = 0;
  for (const v1::TimingBlock& b : blocks) calls += b.calls();
  out.set_total_calls(calls);
  return out;
}

absl::StatusOr<v1::BenchmarkReport> MeasureLatency(const std::function<void()>& call, const LatencyOptions& options,
                                                   Clock* clock, const LatencyHooks& hooks) {
  if (absl::Status s = ValidateLatencyOptions(options); !s.ok()) return s;
  LatencyRunner runner(call, options, clock, hooks);
  runner.WarmUp();
  runner.SizeBlock();
  runner.RunBlocks();
  v1::BenchmarkReport report;
  *report.mutable_settings()->mutable_timing() = ToTimingSettings(options, *clock);
  *report.mutable_timing() = runner.Finish(report.mutable_warnings());
  report.set_work_units(options.work_units);
  report.set_work_unit(options.work_unit);
  return report;
}

}  // namespace torchscan
