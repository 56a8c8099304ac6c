#include "core/sequential_decision.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace torchscan {
namespace {

// log M_n for k of n at or below the candidate median (see the header).
double LogMixture(int n, int k, double a) {
  const auto log_beta = [](double p, double q) { return std::lgamma(p) + std::lgamma(q) - std::lgamma(p + q); };
  return n * std::log(2.0) + log_beta(a + k, a + n - k) - log_beta(a, a);
}

SequenceRanks ComputeSequenceRanks(int n, double alpha, double a) {
  SequenceRanks ranks{0, n + 1};
  if (n < 1 || !(alpha > 0 && alpha < 1) || !(a > 0)) return ranks;
  const double threshold = std::log(1 / alpha);
  // M_n is convex in k with its least value at k = n / 2: the accepted counts are one run.
  int k_low = -1, k_high = -1;
  for (int k = 0; k <= n; ++k) {
    if (LogMixture(n, k, a) < threshold) {
      if (k_low < 0) k_low = k;
      k_high = k;
    }
  }
  if (k_low < 0) return ranks;  // never at these settings: M_n(n / 2) < 1
  // m is in the sequence when k_low <= #{x_i <= m} <= k_high, that is
  // x_(k_low) <= m < x_(k_high + 1): ranks k_low (0 when unbounded) and k_high + 1.
  ranks.lower = k_low;
  ranks.upper = k_high + 1;
  return ranks;
}

}  // namespace

SequenceRanks SequenceRanksAt(int n, double alpha, double a) {
  // Computed once per settings on each thread: a compare looks after every round.
  thread_local std::map<std::tuple<int, double, double>, SequenceRanks> cache;
  auto [it, added] = cache.try_emplace({n, alpha, a});
  if (added) it->second = ComputeSequenceRanks(n, alpha, a);
  return it->second;
}

int FirstBoundedRound(double alpha, double a) {
  for (int n = 1; n <= 10000; ++n) {
    const SequenceRanks r = SequenceRanksAt(n, alpha, a);
    if (r.lower >= 1 && r.upper <= n) return n;
  }
  return 0;
}

SequentialLook LookAt(const std::vector<double>& ratios, double delta, double alpha, double a) {
  SequentialLook look;
  look.rounds = static_cast<int>(ratios.size());
  std::vector<double> logs;
  logs.reserve(ratios.size());
  for (double r : ratios) {
    if (!std::isfinite(r) || !(r > 0)) return look;
    logs.push_back(std::log(r));
  }
  std::sort(logs.begin(), logs.end());
  const int n = look.rounds;
  const SequenceRanks ranks = SequenceRanksAt(n, alpha, a);
  if (ranks.lower >= 1) look.low = std::exp(logs[ranks.lower - 1]);
  if (ranks.upper <= n) look.high = std::exp(logs[ranks.upper - 1]);
  if (!look.low || !look.high) return look;
  look.resolvable_change = (*look.high - *look.low) / 2;
  const double bound = 1 + std::max(delta, 0.0);
  if (*look.low > bound) {
    look.outcome = SequentialOutcome::kSlower;
  } else if (*look.high < 1 / bound) {
    look.outcome = SequentialOutcome::kFaster;
  } else if (*look.low >= 1 / bound && *look.high <= bound) {
    look.outcome = SequentialOutcome::kEquivalent;
  }
  return look;
}

std::vector<double> UnitRatios(const std::vector<int>& units, const std::vector<double>& round_ratios) {
  std::vector<int> order;                   // pairs in order of first appearance
  std::map<int, std::vector<double>> logs;  // by pair
  for (size_t i = 0; i < units.size() && i < round_ratios.size(); ++i) {
    const int unit = units[i] < 1 ? 1 : units[i];
    if (logs.count(unit) == 0) order.push_back(unit);
    const double r = round_ratios[i];
    logs[unit].push_back(std::isfinite(r) && r > 0 ? std::log(r) : std::nan(""));
  }
  std::vector<double> ratios;
  for (int unit : order) {
    std::vector<double>& v = logs[unit];
    if (std::any_of(v.begin(), v.end(), [](double x) { return std::isnan(x); })) {
      ratios.push_back(std::nan(""));
      continue;
    }
    ratios.push_back(std::exp(UnitLogRatio(v)));
  }
  return ratios;
}

double UnitLogRatio(std::vector<double>& logs) {
  if (logs.empty()) return std::nan("");
  std::sort(logs.begin(), logs.end());
  const size_t drop = logs.size() >= 3 ? 1 : 0;
  double sum = 0;
  for (size_t i = drop; i < logs.size() - drop; ++i) sum += logs[i];
  return sum / static_cast<double>(logs.size() - 2 * drop);
}

const char* SequentialOutcomeName(SequentialOutcome outcome) {
  switch (outcome) {
    case SequentialOutcome::kFaster: return "faster";
    case SequentialOutcome::kSlower: return "slower";
    case SequentialOutcome::kEquivalent: return "equivalent";
    case SequentialOutcome::kUndecided: break;
  }
  return "undecided";
}

}  // namespace torchscan
