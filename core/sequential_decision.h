// When a comparison's paired rounds have decided, and what: a confidence sequence for the
// median per-round ratio candidate/baseline that stays valid however often it is looked at,
// so that a compare may add rounds until the evidence decides without inflating false claims.
// Beyond the guide; never used for latency_change. No LibTorch, no proto, no clock: pure
// functions over per-round ratios, tested with synthetic rounds.
//
// Method: the sign-based confidence sequence for a median of Darling and Robbins ("Confidence
// sequences for mean, variance, and median", PNAS 58(1):66-68, 1967), with the beta-binomial
// mixture of Howard and Ramdas ("Sequential estimation of quantiles with applications to
// A/B-testing and best-arm identification", Bernoulli 28(3):1704-1728, 2022, section 3).
// For a candidate median m of the rounds' log ratios, k(m) = #{i <= n : x_i <= m} is, under
// that median, a Binomial(n, 1/2) count whose likelihood ratio against a Beta(a, a) mixture,
//   M_n(m) = 2^n B(a + k, a + n - k) / B(a, a),
// is a nonnegative martingale with mean 1; Ville's inequality bounds the chance that it ever
// reaches 1/alpha by alpha, at every n at once. The confidence sequence is the set of m whose
// M_n(m) < 1/alpha, an interval between two order statistics. Why this one: it assumes only
// that rounds are independent with one median (no symmetry, no normality, no variance
// estimate), so its error holds at 5 rounds as at 500, and an outlier round moves it by one
// rank. Measured (core/sequential_decision_test.cc, 10,000 simulated A/A comparisons per noise
// shape, a look after every round up to 100, alpha 0.10): it missed the true median at some
// look on 4.6-4.7 % of runs, normal, skewed, heavy-tailed or with outlier rounds alike. The
// mean-based asymptotic sequence (Waudby-Smith, Arnold, Wu, Chugg and Ramdas, Annals of
// Statistics 2024) was narrower under normal noise, but missed on 21 % of skewed A/A runs
// with looks from round 8 (a Python simulation of the same set-up): its guarantee is only
// asymptotic, and a compare stops early.
//
// The decision, at each look, from the interval [low, high] of the median ratio and the
// smallest change that matters, delta (a relative change, 0.01 = 1 %):
//   slower      low > 1 + delta: a change at least that large, slower;
//   faster      high < 1 / (1 + delta);
//   equivalent  1 / (1 + delta) <= low and high <= 1 + delta: no change larger than delta;
//   undecided   otherwise: more rounds, or, at the cap, no claim, with the change the rounds
//               could resolve (half the interval's width).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace torchscan {

// The error the decision is made at: the sequence covers the true median ratio at every look
// with probability at least 1 - kSequentialAlpha.
inline constexpr double kSequentialAlpha = 0.10;
// The Beta(a, a) mixture's a: larger tunes the sequence for more rounds (and bounds it only
// from a later round). 4 keeps it narrow from about 20 to 100 rounds, the range a compare's
// cap allows; simulated (a = 2, 8, 20; 2 % normal noise, +2 %): detections 95 % at all
// three, median rounds to decide 40, 45, 55.
inline constexpr double kSequentialMixtureA = 4;

enum class SequentialOutcome { kUndecided, kFaster, kSlower, kEquivalent };

struct SequentialLook {
  int rounds = 0;
  std::optional<double> low, high;  // the median ratio's interval; a side is absent when unbounded
  SequentialOutcome outcome = SequentialOutcome::kUndecided;
  std::optional<double> resolvable_change;  // (high - low) / 2 when both sides are bounded
};

// The ranks bounding the sequence at n rounds: the interval is [x_(lower), x_(upper)] of the
// sorted log ratios (1-based; lower 0: unbounded below; upper n + 1: unbounded above). For
// n < 1, or alpha outside (0, 1), or a <= 0: {0, n + 1}.
struct SequenceRanks {
  int lower = 0;
  int upper = 1;
};
SequenceRanks SequenceRanksAt(int n, double alpha = kSequentialAlpha, double a = kSequentialMixtureA);

// The fewest rounds at which the sequence is bounded on both sides (every decision needs
// that): 10 at the defaults.
int FirstBoundedRound(double alpha = kSequentialAlpha, double a = kSequentialMixtureA);

// The look after `ratios` (candidate / baseline per round, in round order; each finite and
// > 0, else the look is undecided with no interval) with the smallest change that matters
// `delta` (>= 0).
SequentialLook LookAt(const std::vector<double>& ratios, double delta, double alpha = kSequentialAlpha,
                      double a = kSequentialMixtureA);

// A build pair's log ratio from its rounds' log ratios (`logs`, finite; modified: sorted): their
// mean without the lowest and the highest when there are 3 or more (the median of 4 rounds, of
// 3 too), the mean otherwise; NaN for none. Why a trimmed mean and not the median: the rounds of
// a pair are ABBA, so their log ratios are two clusters (the second of a round pays for the
// switch between the modules) and the median of an even count falls between them, while the
// sign-based sequence over pairs already bounds what an outlying pair can do; dropping the two
// extremes keeps one preempted round from moving its pair. Measured (issue 39, the 50-layer
// chain files, 1-call rounds: 20 jobs' round ratios re-drawn into simulated compares of 32
// rounds a pair at 0.21 s of rebuilds, 20 s cap): +2 % claimed in 88 % with this, 42 % with the
// median; A/A copies decided `equivalent` in 71 % against 46 %, never claimed either way.
double UnitLogRatio(std::vector<double>& logs);

// Each build pair's ratio (the unit the sequence counts, independent of the others):
// UnitLogRatio of its rounds' log ratios, mapped back, in order of the pairs' first rounds. `units[i]` is round i's
// build pair (0 read as 1); `round_ratios` as many. A ratio that is not finite and > 0 makes its pair's ratio NaN
// (LookAt then gives no interval).
std::vector<double> UnitRatios(const std::vector<int>& units, const std::vector<double>& round_ratios);

const char* SequentialOutcomeName(SequentialOutcome outcome);  // "undecided", "faster", "slower", "equivalent"

}  // namespace torchscan
