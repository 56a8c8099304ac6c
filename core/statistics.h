// Pure statistics over samples, used by the timing runner and the comparison rules.
// No LibTorch, no I/O; every edge case is stated here and tested with exact values.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace torchscan {

// The quantile interpolation every summary uses; recorded verbatim in reports.
inline constexpr const char* kQuantileMethod =
    "linear interpolation between order statistics (Hyndman-Fan type 7, numpy/torch default)";

// Quantile q in [0, 1] of `values` (any order) by type-7 linear interpolation:
// h = (n - 1) q, result = x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]).
// Empty input or q outside [0, 1] gives std::nullopt. NaN values are ordered last.
std::optional<double> Quantile(std::vector<double> values, double q);

struct Summary {
  double median = 0, q1 = 0, q3 = 0, iqr = 0, mean = 0, min = 0, max = 0;
  long long count = 0;
};

// Median, quartiles (type 7), IQR = q3 - q1, mean, min, max of `values`.
// Empty input gives std::nullopt.
std::optional<Summary> Summarize(const std::vector<double>& values);

struct MannWhitneyResult {
  std::optional<double> p_value;  // two-sided; absent when it cannot be computed
  double u = 0;                   // U statistic of the first sample
  std::string note;               // the method used, or why p_value is absent
};

// Two-sided Mann-Whitney U test of `a` against `b`. Uses the normal approximation with
// tie correction and continuity correction. Guard: when the smallest two-sided p-value an
// exact test could reach, 2 / C(n_a + n_b, n_a), is above `alpha`, the samples are too small
// to ever show significance, and p_value is absent with a note saying so. Also absent when
// either sample is empty or every value is tied.
MannWhitneyResult MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b, double alpha = 0.05);

}  // namespace torchscan
