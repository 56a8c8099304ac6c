#include "core/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace torchscan {
namespace {

bool NanLast(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}

// Average ranks (1-based) of `values`, ties sharing the mean of their ranks; also returns
// sum over tie groups of (t^3 - t) for the variance correction.
std::vector<double> Ranks(const std::vector<double>& values, double* tie_term) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t i, size_t j) { return NanLast(values[i], values[j]); });
  std::vector<double> ranks(values.size());
  *tie_term = 0;
  for (size_t start = 0; start < order.size();) {
    size_t end = start + 1;
    while (end < order.size() && values[order[end]] == values[order[start]]) ++end;
    const double rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2.0;
    for (size_t k = start; k < end; ++k) ranks[order[k]] = rank;
    const double t = static_cast<double>(end - start);
    *tie_term += t * t * t - t;
    start = end;
  }
  return ranks;
}

// log C(n, k) through lgamma, exact enough for the significance guard.
double LogChoose(double n, double k) { return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1); }

}  // namespace

std::optional<double> Quantile(std::vector<double> values, double q) {
  if (values.empty() || !(q >= 0.0 && q <= 1.0)) return std::nullopt;
  std::sort(values.begin(), values.end(), NanLast);
  const double h = static_cast<double>(values.size() - 1) * q;
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

std::optional<Summary> Summarize(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  Summary s;
  s.count = static_cast<long long>(values.size());
  s.median = *Quantile(values, 0.5);
  s.q1 = *Quantile(values, 0.25);
  s.q3 = *Quantile(values, 0.75);
  s.iqr = s.q3 - s.q1;
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end(), NanLast);
  s.min = *lo;
  s.max = *hi;
  return s;
}

MannWhitneyResult MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b, double alpha) {
  MannWhitneyResult result;
  if (a.empty() || b.empty()) {
    result.note = "not computed: a sample is empty";
    return result;
  }
  const double na = static_cast<double>(a.size());
  const double nb = static_cast<double>(b.size());
  const double min_exact_p = 2.0 * std::exp(-LogChoose(na + nb, na));
  if (min_exact_p > alpha) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "not computed: %zu and %zu blocks cannot reach two-sided significance at %.2g (smallest "
                  "possible p = %.2g)",
                  a.size(), b.size(), alpha, min_exact_p);
    result.note = text;
    return result;
  }
  std::vector<double> pooled(a);
  pooled.insert(pooled.end(), b.begin(), b.end());
  double tie_term = 0;
  const std::vector<double> ranks = Ranks(pooled, &tie_term);
  const double rank_sum_a = std::accumulate(ranks.begin(), ranks.begin() + a.size(), 0.0);
  result.u = rank_sum_a - na * (na + 1) / 2.0;
  const double n = na + nb;
  const double variance = na * nb / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (!(variance > 0)) {
    result.note = "not computed: every block time is tied";
    return result;
  }
  const double mean_u = na * nb / 2.0;
  const double distance = std::max(0.0, std::fabs(result.u - mean_u) - 0.5);
  const double z = distance / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  result.note =
      "two-sided Mann-Whitney U over per-block mean call times; normal approximation with tie "
      "and continuity corrections";
  return result;
}

}  // namespace torchscan
