// Paired evidence over alternating timing rounds: the per-round ratio candidate/baseline,
// its median, a distribution-free confidence interval for that median, and a claim drawn
// from the interval alone. Beyond the guide; never used for latency_change. No LibTorch,
// no proto: pure functions over per-round medians, tested with exact values.
//
// Method: the Hodges-Lehmann interval (the inverted Wilcoxon signed-rank test) for the centre
// of the per-round log ratios, mapped back to ratios. With n rounds, x_i = log(ratio_i) and
// the n(n+1)/2 Walsh averages (x_i + x_j) / 2, i <= j, sorted w(1) <= ... <= w(M), the
// interval [w(k), w(M+1-k)] covers the centre with probability 1 - 2 P(T <= k-1), T the
// signed-rank statistic of n values under no change (exact, from its distribution, for
// n <= kExactSignedRankRounds; a normal approximation with continuity correction beyond);
// the largest k that reaches the target is used, and the achieved confidence is stated.
// Why pairing: drift between rounds, not noise within a round, is the error term, and pairing
// round i of each side cancels it. Why this interval: its only assumption is that a round's
// log ratio is the change plus noise symmetric about zero; with no change that is what the
// ABBA order gives (the two runs are exchangeable within a round, and the position each runs
// in alternates), so A/A coverage holds. The sign-test interval it replaced assumes nothing
// but is much wider for the same rounds (asymptotic efficiency 0.64 against the t interval
// under normal noise, against 0.95 for this one). Measured on the 2-core development VM
// (validity_benchmark, 180 A/A and 180 +5 % jobs of five runs, same rounds re-evaluated
// offline): +5 % claimed `slower` 138 times against 127 with the sign test, A/A claims 2
// against 1, none in the wrong direction. With few rounds both agree: at 5 rounds (the
// fewest a 90 % claim needs) each gives [min, max]. Ties need no special case: the Walsh
// averages stay valid order statistics (the interval only gets conservative).
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
  std::optional<double> ci_low, ci_high;      // the Hodges-Lehmann interval; absent with too few rounds
  std::optional<double> achieved_confidence;  // exact coverage of [ci_low, ci_high], >= target
  std::optional<double> resolvable_change;    // (ci_high - ci_low) / 2, a relative change
  // faster: ci_high < 1 / (1 + min_claimed_change); slower: ci_low > 1 + min_claimed_change
  PairedClaim claim = PairedClaim::kNoClaim;
  std::string note;  // why there is no interval or claim; "" otherwise
};

// Rounds up to which the signed-rank law is computed exactly (kMaxRounds is 100).
inline constexpr int kExactSignedRankRounds = 200;

// Smallest number of rounds for which the interval reaches `confidence` (5 at 0.90, 6 at
// 0.95: [min, max] covers with 1 - 2 / 2^n). `confidence` must be in (0, 1); outside it gives 0.
int MinRoundsForConfidence(double confidence);

// P(T <= t) for T the Wilcoxon signed-rank statistic of n values under no change, for
// t = 0 .. n(n+1)/2: exact for 1 <= n <= kExactSignedRankRounds, the normal approximation
// (mean n(n+1)/4, variance n(n+1)(2n+1)/24, continuity correction) beyond. Empty for n < 1.
std::vector<double> SignedRankCdf(int n);

// Coverage of [w(k), w(M+1-k)] over the M = n(n+1)/2 Walsh averages: 1 - 2 P(T <= k-1).
// 0 when n < 1, k < 1 or 2k > M+1.
double SignedRankIntervalCoverage(int n, int k);

// Paired evidence from per-round medians, paired by position (round i of each side).
// Failure cases, each with claim kNoClaim and a note saying why:
//  - the two lists differ in length, or are empty: nothing computed;
//  - a median is not finite or not > 0: nothing computed (no ratio is defined);
//  - fewer rounds than MinRoundsForConfidence(confidence): ratios and median only, note
//    "needs at least 5 rounds at 90% (has 4)";
//  - `confidence` outside (0, 1): nothing computed.
//  - `min_claimed_change` below 0: treated as 0.
PairedRatioResult PairedRatios(const std::vector<double>& baseline_medians,
                               const std::vector<double>& candidate_medians, double confidence = kPairedConfidence,
                               double min_claimed_change = kPairedMinClaimedChange);

const char* PairedClaimName(PairedClaim claim);  // "faster", "slower", "no_claim"

}  // namespace torchscan
