#include "core/round_plan.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace torchscan {

RoundPlan PlanRounds(int rounds, bool reverse, const LatencyOptions& timing, double longest_block_s) {
  RoundPlan plan;
  plan.requested_rounds = plan.rounds = rounds < 1 ? 1 : rounds;
  if (plan.rounds > 1 && longest_block_s > 0) {
    const double affordable = std::floor(timing.min_run_time_s / longest_block_s);
    const int limit = static_cast<int>(std::max<double>(timing.min_blocks, std::min<double>(affordable, plan.rounds)));
    if (limit < plan.rounds) {
      plan.rounds = limit;
      plan.note = absl::StrFormat(
          "%d rounds asked, %d planned: a block of the slower run took %.3g ms when its blocks were sized, so more "
          "rounds would time more "
          "than min_run_time_s %.3g s (a larger min_run_time_s allows more rounds)",
          plan.requested_rounds, plan.rounds, 1e3 * longest_block_s, timing.min_run_time_s);
    }
  }
  const int planned = plan.rounds;
  plan.rounds = 0;
  ExtendRounds(planned, reverse, &plan);
  plan.round_min_run_time_s = timing.min_run_time_s / plan.rounds;
  plan.round_min_blocks = (timing.min_blocks + plan.rounds - 1) / plan.rounds;
  if (plan.round_min_blocks < 1) plan.round_min_blocks = 1;
  plan.round_max_run_time_s = timing.max_run_time_s / plan.rounds;
  return plan;
}

int RoundsPerBuildPair(double builds_s, double round_s) {
  if (!(builds_s > 0) || !(round_s > 0)) return kMinRoundsPerBuildPair;
  const double rounds = std::ceil(2 * builds_s / round_s);
  if (!(rounds < kMaxRoundsPerBuildPair)) return kMaxRoundsPerBuildPair;
  const int even = static_cast<int>(rounds) + static_cast<int>(rounds) % 2;
  return std::max(kMinRoundsPerBuildPair, even);
}

double BuildPairEstimateS(double builds_s, double planned_timing_s, int planned_rounds, int rounds_per_pair) {
  return builds_s + planned_timing_s * std::min(1.0, static_cast<double>(std::max(0, rounds_per_pair) + 1) /
                                                         std::max(1, planned_rounds));
}

double AfterTimingReserveS(double baseline_call_s, double candidate_call_s, int profile_calls) {
  const double calls = 1.25 * std::max(0, profile_calls) + 2;
  return calls * (std::max(0.0, baseline_call_s) + std::max(0.0, candidate_call_s)) + 0.5;
}

void ExtendRounds(int rounds, bool candidate_leads_first, RoundPlan* plan) {
  for (int i = 0; i < rounds; ++i) {
    const int round = ++plan->rounds;
    const bool candidate_leads = candidate_leads_first != (i % 2 == 1);
    plan->steps.push_back({round, candidate_leads, true});
    plan->steps.push_back({round, !candidate_leads, false});
  }
}

int64_t EqualCalls(int64_t baseline_calls, int64_t candidate_calls) {
  return std::max<int64_t>({1, baseline_calls, candidate_calls});
}

double RoundTarget(const RoundPlan& plan, int round, double run_timed_s) {
  return std::max(0.0, round * plan.round_min_run_time_s - run_timed_s);
}

std::string RoundOrder(const RoundPlan& plan) {
  std::string order;
  for (const RoundStep& step : plan.steps)
    absl::StrAppend(&order, order.empty() ? "" : ", ", step.candidate ? "candidate" : "baseline");
  return order;
}

v1::RoundPlan RoundPlanRecord(const RoundPlan& plan, const LatencyOptions& timing, int64_t baseline_calls_per_block,
                              int64_t candidate_calls_per_block) {
  v1::RoundPlan r;
  r.set_rounds(plan.rounds);
  r.set_order(RoundOrder(plan));
  r.set_min_run_time_s(timing.min_run_time_s);
  r.set_round_min_run_time_s(plan.round_min_run_time_s);
  r.set_round_min_blocks(plan.round_min_blocks);
  r.set_warm_up(plan.rounds > 1
                    ? "once per run, before the first round; block sizes chosen then, matched to the longer "
                      "run's block duration, and kept in every round"
                    : "once per run, before its single pass");
  r.set_baseline_calls_per_block(baseline_calls_per_block);
  r.set_candidate_calls_per_block(candidate_calls_per_block);
  r.set_requested_rounds(plan.requested_rounds);
  r.set_note(plan.note);
  return r;
}

}  // namespace torchscan
