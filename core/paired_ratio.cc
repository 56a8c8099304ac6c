#include "core/paired_ratio.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/statistics.h"

namespace torchscan {
namespace {

// P(Bin(n, 1/2) <= j), summed exactly enough for the n a comparison has (binomial terms
// computed in doubles; n beyond ~1000 rounds is not a comparison we make).
double BinomialHalfCdf(int n, int j) {
  double term = std::pow(0.5, n);  // C(n, 0) / 2^n
  double sum = 0;
  for (int i = 0; i <= j && i <= n; ++i) {
    sum += term;
    term = term * (n - i) / (i + 1);
  }
  return sum;
}

std::string PercentText(double confidence) {
  return absl::StrCat(std::round(confidence * 1000) / 10, "%");
}

}  // namespace

double SignIntervalCoverage(int n, int k) {
  if (k < 1 || 2 * k > n + 1) return 0;
  return 1 - 2 * BinomialHalfCdf(n, k - 1);
}

int MinRoundsForConfidence(double confidence) {
  if (!(confidence > 0 && confidence < 1)) return 0;
  for (int n = 1; n < 64; ++n)
    if (SignIntervalCoverage(n, 1) >= confidence) return n;
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
  int k = 1;
  while (SignIntervalCoverage(n, k + 1) >= confidence) ++k;
  std::vector<double> sorted = r.ratios;
  std::sort(sorted.begin(), sorted.end());
  r.ci_low = sorted[k - 1];
  r.ci_high = sorted[n - k];
  r.achieved_confidence = SignIntervalCoverage(n, k);
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
