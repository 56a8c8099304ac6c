#include "core/decision_forecast.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "core/round_plan.h"
#include "core/sequential_decision.h"
#include "core/statistics.h"
#include "proto/spec_limits.h"

namespace torchscan {
namespace {

// One simulated compare's interval bounds (log ratios) after each unit, for units 1..n:
// low[i] and high[i] after i + 1 units (NaN while unbounded). A change shifts both by
// log(1 + d): the order statistics move together.
struct Path {
  std::vector<double> low, high;
};

Path SimulatePath(const std::vector<std::vector<double>>& pairs, const std::vector<SequenceRanks>& ranks, int units,
                  int rounds_per_pair, std::mt19937_64& random) {
  std::uniform_int_distribution<size_t> pick_pair(0, pairs.size() - 1);
  Path path;
  std::vector<double> sorted;  // the units' log ratios so far, kept sorted
  std::vector<double> draw;
  for (int i = 0; i < units; ++i) {
    const std::vector<double>& pair = pairs[pick_pair(random)];
    draw = pair;  // the first unit: the planned rounds, all of one pair
    if (i > 0) {
      std::uniform_int_distribution<size_t> pick_round(0, pair.size() - 1);
      draw.assign(rounds_per_pair, 0);
      for (double& x : draw) x = pair[pick_round(random)];
    }
    const double unit = UnitLogRatio(draw);
    sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), unit), unit);
    const SequenceRanks& r = ranks[i + 1];
    const int n = i + 1;
    path.low.push_back(r.lower >= 1 ? sorted[r.lower - 1] : std::nan(""));
    path.high.push_back(r.upper <= n ? sorted[r.upper - 1] : std::nan(""));
  }
  return path;
}

enum class Ending { kCapped, kFaster, kSlower, kEquivalent };

struct Stop {
  Ending ending = Ending::kCapped;
  int units = 0;
};

Stop Decide(const Path& path, double shift, double margin) {
  for (size_t i = 0; i < path.low.size(); ++i) {
    if (std::isnan(path.low[i]) || std::isnan(path.high[i])) continue;
    const double low = path.low[i] + shift, high = path.high[i] + shift;
    const int n = static_cast<int>(i) + 1;
    if (low > margin) return {Ending::kSlower, n};
    if (high < -margin) return {Ending::kFaster, n};
    if (low >= -margin && high <= margin) return {Ending::kEquivalent, n};
  }
  return {Ending::kCapped, static_cast<int>(path.low.size())};
}

// Share of `paths` ending `wanted` with every unit shifted by log(1 + d) (or -log(1 + d)).
double Share(const std::vector<Path>& paths, double d, bool slower, double margin) {
  const double shift = slower ? std::log1p(d) : -std::log1p(d);
  int hits = 0;
  for (const Path& p : paths) hits += Decide(p, shift, margin).ending == (slower ? Ending::kSlower : Ending::kFaster);
  return static_cast<double>(hits) / static_cast<double>(paths.size());
}

constexpr double kForecastPower = 0.90;
constexpr double kForecastGridStep = 0.001;
constexpr double kForecastGridMax = 0.5;

// The smallest d on the grid claimed in kForecastPower of the paths (bisection: with common
// draws the share grows with d, up to the rare path that decides equivalent first).
std::optional<double> Resolvable(const std::vector<Path>& paths, bool slower, double margin) {
  int lo = 0, hi = static_cast<int>(std::lround(kForecastGridMax / kForecastGridStep));
  if (Share(paths, hi * kForecastGridStep, slower, margin) < kForecastPower - 1e-12) return std::nullopt;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    (Share(paths, mid * kForecastGridStep, slower, margin) >= kForecastPower - 1e-12 ? hi : lo) = mid;
  }
  return hi * kForecastGridStep;
}

}  // namespace

std::optional<v1::DecisionForecast> ForecastDecision(const ForecastInput& in) {
  std::vector<std::vector<double>> pairs;  // log ratios of the usable pairs
  for (const std::vector<double>& ratios : in.pair_round_ratios) {
    std::vector<double> logs;
    for (double r : ratios)
      if (std::isfinite(r) && r > 0) logs.push_back(std::log(r));
    if (!logs.empty()) pairs.push_back(std::move(logs));
  }
  if (pairs.empty() || !(in.planned_s > 0) || !(in.build_pair_s > 0) || in.simulations < 1) return std::nullopt;
  // Units the cap allows: the planned rounds, then each build pair that fits (as TimeBuildPairs
  // starts one only while it would end within max_time_s), at most kMaxBuildPairs in all.
  const double extra = std::floor((in.max_time_s - in.outside_timing_s - in.planned_s) / in.build_pair_s);
  const int units = static_cast<int>(std::clamp(1 + extra, 1.0, static_cast<double>(kMaxBuildPairs)));
  std::vector<SequenceRanks> ranks(units + 1);
  for (int n = 1; n <= units; ++n) ranks[n] = SequenceRanksAt(n);
  std::mt19937_64 random(in.seed);
  std::vector<Path> paths;
  paths.reserve(in.simulations);
  for (int s = 0; s < in.simulations; ++s)
    paths.push_back(SimulatePath(pairs, ranks, units, std::max(1, in.rounds_per_pair), random));

  const double margin = std::log1p(std::max(0.0, in.smallest_change));
  v1::DecisionForecast f;
  f.set_smallest_change(in.smallest_change);
  f.set_max_time_s(in.max_time_s);
  f.set_planned_s(in.planned_s);
  f.set_build_pair_s(in.build_pair_s);
  f.set_outside_timing_s(in.outside_timing_s);
  f.set_simulations(in.simulations);
  int equivalent = 0, claims = 0;
  std::vector<double> stop_s;
  for (const Path& p : paths) {
    const Stop stop = Decide(p, 0, margin);
    equivalent += stop.ending == Ending::kEquivalent;
    claims += stop.ending == Ending::kFaster || stop.ending == Ending::kSlower;
    stop_s.push_back(in.outside_timing_s + in.planned_s + (stop.units - 1) * in.build_pair_s);
  }
  f.set_equivalent_share(static_cast<double>(equivalent) / in.simulations);
  f.set_false_claim_share(static_cast<double>(claims) / in.simulations);
  f.set_median_stop_s(*Quantile(stop_s, 0.5));
  const std::optional<double> slower = Resolvable(paths, true, margin);
  const std::optional<double> faster = Resolvable(paths, false, margin);
  if (slower && faster) f.set_resolvable_change(std::max(*slower, *faster));
  f.set_method(absl::StrCat(in.simulations, " simulated compares, each build pair's ratio the trimmed mean of ",
                            in.rounds_per_pair, " rounds drawn from one of ", pairs.size(),
                            " A/A pairs; the compare's confidence sequence looked at after each; changes claimed in ",
                            kForecastPower * 100, " % of them"));
  return f;
}

std::optional<v1::DecisionForecast> ForecastFromPairs(const std::vector<v1::Comparison>& pairs) {
  ForecastInput in;
  in.smallest_change = kDefaultSmallestChange;
  in.max_time_s = kDefaultCompareMaxTimeS;
  struct Times {
    double timing_s, builds_s;
    int rounds;
  };
  std::vector<Times> times;
  std::vector<double> outside;
  for (const v1::Comparison& c : pairs) {
    const auto& ratios = c.evidence().paired().round_ratios();
    in.pair_round_ratios.emplace_back(ratios.begin(), ratios.end());
    double timing = 0, builds = 0;
    for (const v1::PhaseSpan& span : c.timeline().spans()) {
      const double s = span.end_s() - span.start_s();
      if (span.phase().rfind("timing ", 0) == 0) timing += s;
      if (span.phase().rfind("build ", 0) == 0) builds += s;
    }
    const int rounds = std::max(1, c.round_plan().rounds());
    if (timing <= 0) continue;
    times.push_back({timing, builds, rounds});
    outside.push_back(builds + AfterTimingReserveS(c.before().timing().summary().median_s(),
                                                   c.after().timing().summary().median_s(), kDefaultProfileCalls));
  }
  if (times.empty()) return std::nullopt;
  std::vector<double> planned, builds_s, round_s;
  for (const Times& t : times) {
    planned.push_back(t.timing_s);
    builds_s.push_back(t.builds_s);
    round_s.push_back(t.timing_s / t.rounds);
  }
  // The rounds a compare would time each build pair (even: ABBA), from the pairs' median builds and rounds.
  in.rounds_per_pair = RoundsPerBuildPair(*Quantile(builds_s, 0.5), *Quantile(round_s, 0.5));
  std::vector<double> build_pair;
  for (const Times& t : times)
    build_pair.push_back(BuildPairEstimateS(t.builds_s, t.timing_s, t.rounds, in.rounds_per_pair));
  in.planned_s = *Quantile(planned, 0.5);
  in.build_pair_s = *Quantile(build_pair, 0.5);
  in.outside_timing_s = *Quantile(outside, 0.5);
  return ForecastDecision(in);
}

}  // namespace torchscan
