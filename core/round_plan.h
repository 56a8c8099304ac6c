// The timing plan of a comparison: which run times when, and how much each round times.
// No LibTorch, no clock: pure functions, tested with exact values.
//
// rounds == 1: a single pass of each run, one after the other (baseline first, or the
// candidate with `reverse`): the guide's example.
// rounds > 1: ABBA rounds (up to the rounds asked for; see PlanRounds for fewer). Round 1 is baseline, candidate
// (candidate, baseline with `reverse`), round 2 the opposite, and so on, so each run leads in half the rounds and a
// steady drift adds as much to one run as to the other. Interleaving divides the timed work,
// it does not multiply it: each round of a run times its share, min_run_time_s / rounds (and
// at least ceil(min_blocks / rounds) blocks; a max_run_time_s limit is divided likewise). A
// round stops once the run's timed work reaches round x share in all (RoundTarget), so one
// round's last block running past its share shortens the next: the rounds together time what
// a single pass would, not rounds x one block more. Each run warms up and sizes its block
// once, in its first round, and keeps that block size in every later round (the caller's
// job: experiment/experiment.cc with experiment/torch_measure.h TorchTimingSession).
#pragma once

#include <string>
#include <vector>

#include "core/latency_runner.h"
#include "proto/report.pb.h"

namespace torchscan {

// One timing step: a round of one run.
struct RoundStep {
  int round = 1;           // 1-based
  bool candidate = false;  // which run
  bool leads = false;      // first of the two in its round ("first"/"second" position)
};

struct RoundPlan {
  int requested_rounds = 1;
  int rounds = 1;                // planned: requested_rounds, or fewer (see PlanRounds)
  std::vector<RoundStep> steps;  // in timing order: 2 x rounds steps
  double round_min_run_time_s = 0;
  int round_min_blocks = 1;
  double round_max_run_time_s = 0;  // 0: no limit
  std::string note;                 // why fewer rounds than requested were planned; "" otherwise
};

// The plan for `rounds` (>= 1; the caller validates the range) over `timing`'s totals.
// `longest_block_s` is the longer of the two runs' sized blocks (0: unknown). Each round of a
// run times at least one block, so more rounds than min_run_time_s / longest_block_s would
// time more than a single pass; the plan then has that many rounds (but never fewer than
// min_blocks, which a single pass would time anyway, nor more than asked) and a note says why.
RoundPlan PlanRounds(int rounds, bool reverse, const LatencyOptions& timing, double longest_block_s = 0);

// The alternating rounds each later build pair of a decision-driven comparison times
// (experiment/timed_runs.h; core/decision_forecast.h forecasts them): enough that timing them
// takes at least twice as long as rebuilding both workloads (`builds_s`; `round_s` one round of
// both runs), rounded up to even (ABBA), from kMinRoundsPerBuildPair to kMaxRoundsPerBuildPair;
// the minimum when a figure is not positive. Why: the rounds of a pair are what it measures,
// the rebuild is what makes pairs independent. Measured (issue 39, the 50-layer chain files on
// LibTorch 2.11, 1-call rounds of 11 ms against 0.21 s of rebuilds, 20 s cap): at 4 rounds a
// pair, 70 pairs timed 3.2 s of 19 s and a +2 % change was claimed in 4 of 10 compares; the
// same rounds re-drawn into 32-round pairs: 88 %. Small models rebuild in milliseconds and keep 4.
inline constexpr int kMinRoundsPerBuildPair = 4;
inline constexpr int kMaxRoundsPerBuildPair = 32;
int RoundsPerBuildPair(double builds_s, double round_s);

// Seconds one more build pair is expected to take before any was timed: both workloads built
// again (`builds_s`, what the first builds took), then a warm-up of one block per run and
// `rounds_per_pair` rounds (RoundsPerBuildPair): rounds_per_pair + 1 of the `planned_rounds`
// rounds that took `planned_timing_s` (at most all of it: the first warm-up sized blocks too).
// Used by the time cap (experiment/timed_runs.h) and the forecast (core/decision_forecast.h).
double BuildPairEstimateS(double builds_s, double planned_timing_s, int planned_rounds, int rounds_per_pair);

// Seconds a comparison's work after its timing is expected to take, from each run's per-call
// time: the operator profile over `profile_calls` calls (0: diagnostics off) at 1.25 x a call
// (the profiler's instrumentation), the tensor-memory pass and the output check (a call each),
// per run, plus 0.5 s for the worker's own start, report and exit. The time cap keeps this in
// reserve when it decides whether one more build pair fits (experiment/timed_runs.h), so the
// whole job, not its timing alone, stays within max_time_s.
double AfterTimingReserveS(double baseline_call_s, double candidate_call_s, int profile_calls);

// Appends `rounds` more rounds to `plan`, numbered on from plan->rounds, in ABBA order: the
// first new round led by the candidate when `candidate_leads_first` (PlanRounds: `reverse`),
// each later one by the other run in turn, with the plan's per-round share. A comparison's
// extra build pairs (experiment/timed_runs.h) choose their first leader per pair: the run whose
// warm-up was last, so that it continues from its own calls as every later leader does.
// plan->rounds grows.
void ExtendRounds(int rounds, bool candidate_leads_first, RoundPlan* plan);

// Calls per block both runs of a comparison time, from the calls each run's block sizing chose:
// the larger (>= 1), the same for both, kept for every round and build pair. Why equal counts:
// a block's per-call time is its mean, so a block of many calls carries every preemption that
// fell inside it, while the median over one-call blocks steps over them; under load the side
// with the longer blocks comes out slower. Measured (issue 40, a 0.3 ms model under a build on
// both cores): sizing gave 29 calls against 1 and 1 against 10, and those compares claimed 23.5 %
// faster and 28.6 % slower between equal files; core/equal_footing_test.cc reproduces it with a
// clock that preempts one call in ten. The larger count keeps both blocks above the sizing
// criteria (blocks only get longer). Equal durations (the rule before) matched blocks of two
// builds sized on either side of a power of ten, which equal counts also do.
int64_t EqualCalls(int64_t baseline_calls, int64_t candidate_calls);

// Seconds of timed work `run_timed_s` must reach for round `round` (1-based) of `plan` to
// stop: round x round_min_run_time_s minus what the run timed before it, at least 0.
double RoundTarget(const RoundPlan& plan, int round, double run_timed_s);

// "baseline, candidate, candidate, baseline" for 2 rounds starting with the baseline: the
// steps' runs in timing order.
std::string RoundOrder(const RoundPlan& plan);

// What a comparison records of the plan (proto RoundPlan); the block sizes are the ones each
// run chose in its first round.
v1::RoundPlan RoundPlanRecord(const RoundPlan& plan, const LatencyOptions& timing, int64_t baseline_calls_per_block,
                              int64_t candidate_calls_per_block);

}  // namespace torchscan
