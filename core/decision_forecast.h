// What a decision-driven compare (experiment/timed_runs.h: build pairs until the confidence
// sequence of core/sequential_decision.h decides, or the time cap) of a workload is expected
// to do on this machine, forecast from a calibration's A/A pairs, so that a user learns
// before a compare what it can resolve and about how long it takes (issue 25, item 5).
// Pure functions: no LibTorch, no clock; the simulation's random draws are seeded.
//
// The model, a bootstrap of the machine's own noise: each A/A pair of a calibration ran in a
// fresh worker with its own two builds, so one pair's round ratios carry both the rounds'
// noise and that build pair's offset. A simulated compare's first unit is the UnitLogRatio
// (core/sequential_decision.h) of one pair's rounds (the planned rounds); each later build
// pair's unit is that of `rounds_per_pair` rounds drawn with replacement from one pair, drawn at random. A true
// change d multiplies every unit by 1 + d. The compare looks after each unit as the real one
// does and stops when it decides, when one more build pair would pass the cap (outside_timing_s
// + planned_s + units x build_pair_s: the cap is the whole job's), or at kMaxBuildPairs. Why it is honest: the decision
// is the same LookAt; the noise is this machine's, drift and build offsets included. What it leaves out: rounds of a
// pair are drawn as if independent (a pair's slow stretch is spread over its draws), and the first unit is as noisy as
// any pair's median; both err toward a longer forecast when a pair's own rounds drift.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "proto/report.pb.h"

namespace torchscan {

struct ForecastInput {
  std::vector<std::vector<double>> pair_round_ratios;  // each A/A pair's round ratios (after / before)
  double planned_s = 0;                                // seconds of the planned rounds, both runs
  double build_pair_s = 0;                             // seconds of one more build pair
  double outside_timing_s = 0;                         // seconds of the job besides its timing (builds, work after it)
  double smallest_change = 0.01;
  double max_time_s = 20;
  int rounds_per_pair = 4;
  int simulations = 400;
  uint64_t seed = 25;
};

// The forecast, or nullopt when no pair has a usable round ratio (finite, > 0) or a time is
// not positive.
std::optional<v1::DecisionForecast> ForecastDecision(const ForecastInput& input);

// The forecast of a calibration's A/A comparisons (each one fixed-length pair of the workload
// against itself) for a compare at the defaults (proto/spec_limits.h kDefaultSmallestChange,
// kDefaultCompareMaxTimeS). Times are read from each pair's timeline, medians over the pairs:
// planned_s is its "timing" phases; outside_timing_s its "build" phases plus what a default
// compare does after timing (core/round_plan.h AfterTimingReserveS at the pair's per-call
// medians: a calibration's pairs skip it); build_pair_s its "build" phases (a build pair rebuilds
// both) plus the timing of RoundsPerBuildPair + 1 rounds of each run (its rounds, and a
// warm-up of one block per run, at most a round's share). Measured against 5 default compares
// of `linear` after a calibrate (idle 2-core VM): forecast 0.15 s a build pair while warm-up
// phases were counted, real 0.05 s; hence one round's share instead.
std::optional<v1::DecisionForecast> ForecastFromPairs(const std::vector<v1::Comparison>& pairs);

}  // namespace torchscan
