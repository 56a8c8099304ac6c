#include "core/build_pair_decision.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/cpu_load.h"
#include "core/statistics.h"

namespace torchscan {
namespace {

bool Known(const v1::TimingLoad& load) { return load.interval_s() > 0 && load.cpu_count() > 0; }

double Median(std::vector<double> values) { return Quantile(std::move(values), 0.5).value_or(std::nan("")); }

// Why two groups of log ratios differ, or "" when the test does not show it at kRobustnessAlpha
// (too few pairs to ever show it included).
std::string Differ(const std::vector<double>& a, const std::vector<double>& b, const char* what, const char* a_name,
                   const char* b_name) {
  const MannWhitneyResult test = MannWhitneyU(a, b, kRobustnessAlpha);
  if (!test.p_value || !(*test.p_value < kRobustnessAlpha)) return "";
  return absl::StrFormat(
      "withheld: %s (%s median ratio %.4fx over %d build pairs, %s %.4fx over %d; Mann-Whitney p = %.3g < %g), so "
      "the build pairs do not share one median ratio as the confidence sequence assumes",
      what, a_name, std::exp(Median(a)), a.size(), b_name, std::exp(Median(b)), b.size(), *test.p_value,
      kRobustnessAlpha);
}

// The robustness checks of a decided look over `kept` (in time order): "" when they pass.
std::string RobustnessCheck(const std::vector<BuildPair>& kept) {
  std::vector<double> logs;
  for (const BuildPair& p : kept) logs.push_back(std::log(p.ratio));
  const size_t half = logs.size() / 2;
  std::string why = Differ(std::vector<double>(logs.begin(), logs.begin() + half),
                           std::vector<double>(logs.begin() + half, logs.end()), "the ratios drifted while it timed",
                           "first half", "second half");
  if (!why.empty()) return why;
  if (std::any_of(kept.begin(), kept.end(), [](const BuildPair& p) { return !Known(p.load); })) return "";
  std::vector<size_t> by_load(kept.size());
  std::iota(by_load.begin(), by_load.end(), 0);
  std::stable_sort(by_load.begin(), by_load.end(),
                   [&](size_t i, size_t j) { return kept[i].load.other_cpu_share() < kept[j].load.other_cpu_share(); });
  std::vector<double> quieter, busier;
  for (size_t k = 0; k < by_load.size(); ++k) (k < half ? quieter : busier).push_back(logs[by_load[k]]);
  return Differ(quieter, busier, "the ratios moved with the load", "quieter half", "busier half");
}

}  // namespace

v1::TimingLoad RoundLoad(const v1::TimingLoad* baseline, const v1::TimingLoad* candidate) {
  if (baseline == nullptr || candidate == nullptr || !Known(*baseline) || !Known(*candidate)) return {};
  v1::TimingLoad load = *baseline;
  PoolTimingLoad(*candidate, &load);
  return load;
}

std::vector<int> RoundUnitsOf(const v1::BenchmarkReport& run) {
  std::map<int, int> units;  // by round number
  for (const v1::TimingRound& r : run.timing().rounds()) units[r.round()] = std::max(1, r.unit());
  std::vector<int> out;
  for (const auto& [round, unit] : units) out.push_back(unit);
  return out;
}

std::vector<v1::TimingLoad> RoundLoadsOf(const v1::BenchmarkReport& before, const v1::BenchmarkReport& after) {
  std::map<int, const v1::TimingLoad*> b, a;
  for (const v1::TimingRound& r : before.timing().rounds()) b[r.round()] = r.has_load() ? &r.load() : nullptr;
  for (const v1::TimingRound& r : after.timing().rounds()) a[r.round()] = r.has_load() ? &r.load() : nullptr;
  std::vector<v1::TimingLoad> loads;
  for (const auto& [round, load] : b) loads.push_back(RoundLoad(load, a.count(round) ? a[round] : nullptr));
  return loads;
}

std::vector<BuildPair> BuildPairsOf(const std::vector<int>& units, const std::vector<double>& round_ratios,
                                    const std::vector<v1::TimingLoad>& round_loads) {
  const std::vector<double> ratios = UnitRatios(units, round_ratios);
  std::vector<int> order;  // pairs in order of first appearance, as UnitRatios
  std::map<int, v1::TimingLoad> loads;
  std::set<int> unknown;  // pairs with a round whose load is unknown: their load is unknown
  for (size_t i = 0; i < units.size() && i < round_ratios.size(); ++i) {
    const int unit = units[i] < 1 ? 1 : units[i];
    if (loads.count(unit) == 0) order.push_back(unit);
    v1::TimingLoad& load = loads[unit];
    if (i < round_loads.size() && Known(round_loads[i])) PoolTimingLoad(round_loads[i], &load);
    else unknown.insert(unit);
  }
  std::vector<BuildPair> pairs;
  for (size_t k = 0; k < order.size() && k < ratios.size(); ++k)
    pairs.push_back({ratios[k], unknown.count(order[k]) ? v1::TimingLoad() : loads[order[k]]});
  return pairs;
}

PairDecision DecideOverBuildPairs(const std::vector<BuildPair>& pairs, double delta, double max_other_cpu_share) {
  PairDecision d;
  d.pairs = static_cast<int>(pairs.size());
  std::vector<BuildPair> kept;
  v1::TimingLoad all;  // every pair whose load is known, pooled
  double loaded_s = 0;
  for (const BuildPair& p : pairs) {
    if (Known(p.load)) {
      PoolTimingLoad(p.load, &all);
      if (p.load.other_cpu_share() > max_other_cpu_share) {
        ++d.loaded_pairs;
        loaded_s += p.load.interval_s();
        continue;
      }
    }
    kept.push_back(p);
  }
  d.other_cpu_share = all.other_cpu_share();
  std::vector<double> ratios;
  for (const BuildPair& p : kept) ratios.push_back(p.ratio);
  d.look = LookAt(ratios, delta);
  if (loaded_s > all.interval_s() / 2) {
    d.withheld = absl::StrFormat(
        "no claim: others used %.0f %% of CPUs %s while it timed, above the %.0f %% limit in %d of %d build pairs "
        "(max_other_cpu_share %g): rerun on a quieter machine",
        100 * d.other_cpu_share, all.cpus(), 100 * max_other_cpu_share, d.loaded_pairs, d.pairs, max_other_cpu_share);
    return d;
  }
  if (d.look.outcome == SequentialOutcome::kUndecided) return d;
  d.withheld = RobustnessCheck(kept);
  if (d.withheld.empty()) d.claim = d.look.outcome;
  return d;
}

}  // namespace torchscan
