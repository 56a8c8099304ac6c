// The decision of a comparison over its build pairs, guarded against a busy machine: which pairs
// count (the load other work put on the job's CPUs while a pair was timed), whether timing was
// mostly under load (no claim then), the confidence sequence over the pairs that count
// (core/sequential_decision.h), and a robustness check that a decided look must pass before it
// is a claim. One function for the worker's stopping rule (experiment/timed_runs.cc) and the
// comparison's evidence (core/compare.cc), so that they agree. No LibTorch, no clock.
//
// Loaded pairs are discarded, not down-weighted: the sequence counts pairs, one sign each, and a
// weighted count is no longer the Binomial(n, 1/2) its martingale assumes; a pair chosen by a
// figure measured beside its ratio (the other processes' CPU time) keeps that count for the
// pairs kept. Why discard at all: on this 2-core VM a single-threaded job shares nothing with
// other work below half of the CPUs, and above it others preempt the timed calls.
//
// Robustness check before a claim (faster, slower or equivalent): the pairs' log ratios must
// not differ between the first and the second half of the pairs in time (drift: the machine
// changed while it timed), nor between the quieter and the busier half by load (the effect comes
// with the load), each by a two-sided Mann-Whitney U test (Mann and Whitney, "On a test of
// whether one of two random variables is stochastically larger than the other", Ann. Math.
// Statist. 18(1):50-60, 1947) at kRobustnessAlpha. This is a split-sample check of the
// sequence's assumption (independent pairs with one median), in the spirit of Kalibera and Jones
// ("Rigorous benchmarking in reasonable time", ISMM 2013), who check that repetitions are
// independent and identically distributed before trusting an interval over them. A failed check
// withholds the claim with its reason; more pairs may then decide again.
#pragma once

#include <string>
#include <vector>

#include "core/sequential_decision.h"
#include "proto/report.pb.h"

namespace torchscan {

// The level of each of the two robustness tests: 0.01, so that both together withhold at most
// about 2 % of the claims an idle machine makes.
inline constexpr double kRobustnessAlpha = 0.01;

// Loads of rounds and pairs are proto TimingLoads pooled with core/cpu_load.h PoolTimingLoad; an
// empty one (interval_s 0) is unknown: /proc unreadable, or a report written before rounds kept it.

// A round's load with both runs pooled (proto TimingRound.load of each; nullptr or an empty
// load: unknown, and so is the result).
v1::TimingLoad RoundLoad(const v1::TimingLoad* baseline, const v1::TimingLoad* candidate);

// Each round's build pair (TimingRound.unit, 0 read as 1) of a run, in round order.
std::vector<int> RoundUnitsOf(const v1::BenchmarkReport& run);

// RoundLoad of each round of a comparison's two runs, paired by round number, in round order.
std::vector<v1::TimingLoad> RoundLoadsOf(const v1::BenchmarkReport& before, const v1::BenchmarkReport& after);

struct BuildPair {
  double ratio = 0;     // candidate / baseline (core/sequential_decision.h UnitRatios)
  v1::TimingLoad load;  // both runs' rounds of the pair, pooled; empty when a round's is unknown
};

// The build pairs of a comparison's rounds: `units[i]` is round i's build pair, `round_ratios[i]`
// its ratio and `round_loads[i]` the load while both runs timed it (pooled), in round order. The
// pairs' ratios are UnitRatios'; their loads the sum of their rounds'.
std::vector<BuildPair> BuildPairsOf(const std::vector<int>& units, const std::vector<double>& round_ratios,
                                    const std::vector<v1::TimingLoad>& round_loads);

struct PairDecision {
  SequentialLook look;  // over the kept pairs
  // The claim: look.outcome when it is decided and passes the checks; kUndecided otherwise.
  SequentialOutcome claim = SequentialOutcome::kUndecided;
  // Why a decided look is no claim, or why the load forbids one; "" when nothing is withheld.
  std::string withheld;
  int pairs = 0;               // all pairs
  int loaded_pairs = 0;        // above the limit: discarded
  double other_cpu_share = 0;  // over every pair whose load is known
};

// The decision over `pairs` at the smallest change that matters `delta`, discarding pairs whose
// other processes used more than `max_other_cpu_share` of the job's CPUs (the loads' `cpus`). When
// the discarded pairs timed more than half of the time whose load is known, there is no claim,
// the reason naming the share ("others used 61 % of CPUs 0-1 while it timed ..."). A decided
// look over the kept pairs is the claim only if the robustness checks pass.
PairDecision DecideOverBuildPairs(const std::vector<BuildPair>& pairs, double delta, double max_other_cpu_share);

}  // namespace torchscan
