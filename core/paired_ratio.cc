#include "core/paired_ratio.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "core/statistics.h"

namespace torchscan {
namespace {

// Exact law of T = the sum of the ranks of the positive values among n under no change: each
// rank is in the sum with probability 1/2, independently. Counts of subsets of {1..n} by sum,
// kept divided by 2 per rank added (doubles: 2^-200 is far above the smallest double).
std::vector<double> ExactSignedRankCdf(int n) {
  const int total = n * (n + 1) / 2;
  std::vector<double> p(total + 1, 0.0);
  p[0] = 1;
  for (int rank = 1, reach = 0; rank <= n; ++rank) {
    reach += rank;
    for (int s = reach; s >= 0; --s) p[s] = (p[s] + (s >= rank ? p[s - rank] : 0)) / 2;
  }
  for (int s = 1; s <= total; ++s) p[s] += p[s - 1];
  return p;
}

std::vector<double> NormalSignedRankCdf(int n) {
  const int total = n * (n + 1) / 2;
  const double mean = total / 2.0, sd = std::sqrt(n * (n + 1.0) * (2 * n + 1.0) / 24);
  std::vector<double> p(total + 1);
  for (int s = 0; s <= total; ++s) p[s] = 0.5 * std::erfc(-((s + 0.5 - mean) / sd) / std::sqrt(2.0));
  return p;
}

// SignedRankCdf(n), computed once per n on each thread: the noise floor asks for the same n
// thousands of times (core/noise_floor.cc scales each pair's ratios along a grid).
const std::vector<double>& CachedSignedRankCdf(int n) {
  thread_local std::map<int, std::vector<double>> cache;
  auto [it, added] = cache.try_emplace(n);
  if (added) it->second = SignedRankCdf(n);
  return it->second;
}

std::string PercentText(double confidence) { return absl::StrCat(std::round(confidence * 1000) / 10, "%"); }

}  // namespace

std::vector<double> SignedRankCdf(int n) {
  if (n < 1) return {};
  return n <= kExactSignedRankRounds ? ExactSignedRankCdf(n) : NormalSignedRankCdf(n);
}

double SignedRankIntervalCoverage(int n, int k) {
  if (n < 1 || k < 1 || 2 * k > n * (n + 1) / 2 + 1) return 0;
  return 1 - 2 * SignedRankCdf(n)[k - 1];
}

int MinRoundsForConfidence(double confidence) {
  if (!(confidence > 0 && confidence < 1)) return 0;
  for (int n = 1; n < 64; ++n)
    if (1 - 2 * std::pow(0.5, n) >= confidence) return n;  // k = 1: P(T <= 0) = 2^-n
  return 0;
}

PairedRatioResult PairedRatios(const std::vector<double>& baseline_medians,
                               const std::vector<double>& candidate_medians, double confidence,
                               double min_claimed_change) {
  PairedRatioResult r;
  if (!(confidence > 0 && confidence < 1)) {
    r.note = absl::StrCat("confidence ", confidence, " is outside (0, 1)");
    return r;
  }
  if (baseline_medians.size() != candidate_medians.size()) {
    r.note = absl::StrCat("the runs have different round counts (", baseline_medians.size(), " vs ",
                          candidate_medians.size(), "): rounds cannot be paired");
    return r;
  }
  if (baseline_medians.empty()) {
    r.note = "no timing rounds to pair: the runs were timed in a single pass";
    return r;
  }
  for (size_t i = 0; i < baseline_medians.size(); ++i) {
    const double b = baseline_medians[i], c = candidate_medians[i];
    if (!std::isfinite(b) || !std::isfinite(c) || b <= 0 || c <= 0) {
      r.ratios.clear();
      r.note = absl::StrCat("round ", i + 1, " has a median that is not a positive number: no ratio is defined");
      return r;
    }
    r.ratios.push_back(c / b);
  }
  r.median_ratio = Quantile(r.ratios, 0.5);
  const int n = static_cast<int>(r.ratios.size());
  const int needed = MinRoundsForConfidence(confidence);
  if (n < needed) {
    r.note = absl::StrCat("needs at least ", needed, " rounds at ", PercentText(confidence), " (has ", n, ")");
    return r;
  }
  // Walsh averages of the log ratios, sorted; the interval's ends are order statistics of them.
  std::vector<double> walsh;
  walsh.reserve(static_cast<size_t>(n) * (n + 1) / 2);
  for (int i = 0; i < n; ++i)
    for (int j = i; j < n; ++j) walsh.push_back((std::log(r.ratios[i]) + std::log(r.ratios[j])) / 2);
  std::sort(walsh.begin(), walsh.end());
  const int total = static_cast<int>(walsh.size());
  const std::vector<double>& cdf = CachedSignedRankCdf(n);
  int k = 1;  // coverage at k = 1 is >= confidence: n >= needed
  while (2 * (k + 1) <= total + 1 && 1 - 2 * cdf[k] >= confidence) ++k;
  r.ci_low = std::exp(walsh[k - 1]);
  r.ci_high = std::exp(walsh[total - k]);
  r.achieved_confidence = 1 - 2 * cdf[k - 1];
  r.resolvable_change = (*r.ci_high - *r.ci_low) / 2;
  const double margin = 1 + std::max(0.0, min_claimed_change);
  if (*r.ci_high < 1 / margin) r.claim = PairedClaim::kFaster;
  else if (*r.ci_low > margin) r.claim = PairedClaim::kSlower;
  return r;
}

const char* PairedClaimName(PairedClaim claim) {
  switch (claim) {
    case PairedClaim::kFaster: return "faster";
    case PairedClaim::kSlower: return "slower";
    case PairedClaim::kNoClaim: break;
  }
  return "no_claim";
}

}  // namespace torchscan
