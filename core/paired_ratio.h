// Paired evidence over alternating timing rounds: the per-round ratio candidate/baseline,
// its median, a distribution-free confidence interval for that median, and a claim drawn
// from the interval alone. Beyond the guide; never used for latency_change. No LibTorch,
// no proto: pure functions over per-round medians, tested with exact values.
//
// Method: the sign-test (order-statistic) interval for the median of the paired ratios.
// Why: a comparison has few rounds (often 4-10), and drift between rounds, not noise within
// a round, is the error term; pairing round i of each side cancels that drift, and the
// sign-test interval assumes nothing about the ratios' distribution (not symmetry, as
// Hodges-Lehmann does; not a resampling approximation, which a bootstrap over 6 values
// is). Its coverage is exact from the binomial(n, 1/2) law, so the achieved confidence is
// stated, and it is honest about few rounds: with n sorted ratios r(1) <= ... <= r(n), the
// interval [r(k), r(n+1-k)] covers the median with probability 1 - 2 P(Bin(n, 1/2) <= k-1);
// the largest k that reaches the target is used. At 90 % this needs n >= 5 (k = 1 gives
// 1 - 2/2^n: 0.875 at n = 4, 0.9375 at n = 5). Ties and ratios exactly 1 need no special
// case: the order statistics stay valid (the interval only gets conservative).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace torchscan {

inline constexpr double kPairedConfidence = 0.90;  // the confidence the claim is made at
// The smallest change claimed: `slower` needs the whole interval above 1 + this, `faster`
// below 1 / (1 + this). Why not 1 itself: pairing rounds cancels drift between rounds, but
// not what is fixed for a job, such as where each of the two built modules landed in memory.
// Measured on the 2-core development VM (validity_benchmark, 20 A/A jobs at 40 rounds of
// the default 0.2 s): the per-job median ratio of two builds of the same module ranged
// 0.976-1.040, so with many rounds an interval excluding 1 was claimed on 4 of 20 A/A jobs;
// beyond 1 % none was, while 19 of 20 +5 % jobs still were.
inline constexpr double kPairedMinClaimedChange = 0.01;

enum class PairedClaim { kNoClaim, kFaster, kSlower };

struct PairedRatioResult {
  std::vector<double> ratios;                 // candidate / baseline, in round order
  std::optional<double> median_ratio;         // of `ratios`, type-7 median
  std::optional<double> ci_low, ci_high;      // the sign-test interval; absent with too few rounds
  std::optional<double> achieved_confidence;  // exact coverage of [ci_low, ci_high], >= target
  std::optional<double> resolvable_change;    // (ci_high - ci_low) / 2, a relative change
  // faster: ci_high < 1 / (1 + min_claimed_change); slower: ci_low > 1 + min_claimed_change
  PairedClaim claim = PairedClaim::kNoClaim;
  std::string note;                           // why there is no interval or claim; "" otherwise
};

// Smallest number of rounds for which the sign-test interval reaches `confidence`
// (5 at 0.90, 6 at 0.95). `confidence` must be in (0, 1); outside it gives 0.
int MinRoundsForConfidence(double confidence);

// Exact coverage of [r(k), r(n+1-k)]: 1 - 2 P(Bin(n, 1/2) <= k-1). 0 when k < 1 or 2k > n+1.
double SignIntervalCoverage(int n, int k);

// Paired evidence from per-round medians, paired by position (round i of each side).
// Failure cases, each with claim kNoClaim and a note saying why:
//  - the two lists differ in length, or are empty: nothing computed;
//  - a median is not finite or not > 0: nothing computed (no ratio is defined);
//  - fewer rounds than MinRoundsForConfidence(confidence): ratios and median only, note
//    "needs at least 5 rounds at 90% (has 4)";
//  - `confidence` outside (0, 1): nothing computed.
//  - `min_claimed_change` below 0: treated as 0.
PairedRatioResult PairedRatios(const std::vector<double>& baseline_medians,
                               const std::vector<double>& candidate_medians,
                               double confidence = kPairedConfidence,
                               double min_claimed_change = kPairedMinClaimedChange);

const char* PairedClaimName(PairedClaim claim);  // "faster", "slower", "no_claim"

}  // namespace torchscan
