#include "core/timing_rounds.h"

#include <limits>

#include "core/cpu_load.h"
#include "core/latency_runner.h"

namespace torchscan {
namespace {

bool HasWarning(const v1::BenchmarkReport& r, const std::string& code) {
  for (const v1::Warning& w : r.warnings())
    if (w.code() == code) return true;
  return false;
}

}  // namespace

void AddTimingRound(const v1::BenchmarkReport& round, int index, const std::string& position,
                    v1::BenchmarkReport* pooled) {
  const bool first = pooled->timing().blocks().empty() && pooled->timing().rounds().empty();
  const int64_t first_block = first ? 0 : pooled->timing().blocks_size();
  if (first) {
    *pooled = round;
  } else {
    v1::Timing* t = pooled->mutable_timing();
    for (const v1::TimingBlock& b : round.timing().blocks()) *t->add_blocks() = b;
    t->set_timed_total_s(t->timed_total_s() + round.timing().timed_total_s());
    t->set_warmup_calls(t->warmup_calls() + round.timing().warmup_calls());
    *t->mutable_summary() = SummarizeBlocks(t->blocks());
    const double median = t->summary().median_s();
    t->set_throughput(median > 0 ? pooled->work_units() / median : std::numeric_limits<double>::infinity());
    if (round.timing().has_load()) PoolTimingLoad(round.timing().load(), t->mutable_load());
    for (const v1::Warning& w : round.warnings())
      if (!HasWarning(*pooled, w.code())) *pooled->add_warnings() = w;
  }
  v1::TimingRound* r = pooled->mutable_timing()->add_rounds();
  r->set_round(index);
  r->set_position(position);
  r->set_first_block(first_block);
  r->set_block_count(round.timing().blocks_size());
  r->set_median_s(round.timing().summary().median_s());
}

std::string AlternatingOrder(int rounds, bool candidate_first) {
  std::string order;
  for (int r = 0; r < rounds; ++r) {
    const bool candidate_leads = candidate_first != (r % 2 == 1);
    order += std::string(order.empty() ? "" : ", ") + (candidate_leads ? "candidate, baseline" : "baseline, candidate");
  }
  return order;
}

}  // namespace torchscan
