#include "core/compare.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/build_pair_decision.h"
#include "core/compatibility.h"
#include "core/deltas.h"
#include "core/instruction_diff.h"
#include "core/latency_runner.h"
#include "core/number_format.h"
#include "core/paired_ratio.h"
#include "core/sequential_decision.h"
#include "core/statistics.h"
#include "proto/spec_limits.h"

namespace torchscan {
namespace {

constexpr const char* kSpreadNote =
    "within_variability means the median change is no larger than the larger run's IQR. This rule "
    "describes observed spread; it is not a statistical significance test or protection against "
    "thermal drift, execution order, or background load. Repeat runs and alternate their order "
    "before claiming a small gain.";

// Empty when numbers may be shown, else why they are withheld.
std::string WithheldReason(const v1::OutputCheck& check, const v1::Compatibility& compatibility) {
  if (check.status() == v1::OutputCheck::failed) return "withheld: the output check failed (" + check.message() + ")";
  if (!compatibility.compatible()) {
    std::string fields;
    for (const v1::Mismatch& m : compatibility.mismatches()) fields += (fields.empty() ? "" : ", ") + m.field();
    return "withheld: the runs are not comparable (" + fields + ")";
  }
  return "";
}

constexpr const char* kPairedMethod =
    "Hodges-Lehmann interval (inverted Wilcoxon signed-rank test) for the centre of the per-round log ratios "
    "after/before; assumes only noise symmetric about the change, exact coverage up to 200 rounds; a claim needs the "
    "whole interval beyond +/-1% (what pairing cannot cancel: two builds of one module differ by about that)";

constexpr const char* kSequentialMethod =
    "confidence sequence for the median ratio after/before over build pairs (sign-based, beta-binomial mixture: "
    "Darling and Robbins 1967, Howard and Ramdas 2022), valid however often it was looked at; each build pair's "
    "ratio is the trimmed mean of its rounds' log ratios; pairs timed while other processes used more than "
    "max_other_cpu_share of the job's CPUs are left out; a claim needs the whole interval beyond the smallest change "
    "that matters, equivalent the whole interval within it, and both to pass a robustness check (Mann-Whitney tests "
    "at 1 % that the first and second half of the pairs, and the quieter and busier half, agree)";

// Per-round medians of one run keyed by round number (1-based), in round order.
std::vector<std::pair<int, double>> RoundMedians(const v1::BenchmarkReport& run) {
  std::vector<std::pair<int, double>> medians;
  for (const v1::TimingRound& r : run.timing().rounds()) medians.emplace_back(r.round(), r.median_s());
  std::sort(medians.begin(), medians.end());
  return medians;
}

// With two build pairs or more: the claim and interval of the confidence sequence over build
// pairs, guarded against load (core/build_pair_decision.h), replacing the rounds' interval.
void SetBuildPairEvidence(const std::vector<int>& units, const std::vector<v1::TimingLoad>& loads,
                          const v1::TimingSettings& timing, v1::PairedEvidence* p) {
  const double smallest_change = timing.smallest_change() > 0 ? timing.smallest_change() : kPairedMinClaimedChange;
  const double max_share = timing.max_other_cpu_share() > 0 ? timing.max_other_cpu_share() : kDefaultMaxOtherCpuShare;
  const std::vector<double> rounds(p->round_ratios().begin(), p->round_ratios().end());
  const std::vector<BuildPair> build_pairs = BuildPairsOf(units, rounds, loads);
  const PairDecision d = DecideOverBuildPairs(build_pairs, smallest_change, max_share);
  std::vector<double> pairs;
  for (const BuildPair& pair : build_pairs) pairs.push_back(pair.ratio);
  for (double r : pairs) p->add_unit_ratios(r);
  p->set_discarded_build_pairs(d.loaded_pairs);
  p->set_method(kSequentialMethod);
  p->set_min_claimed_change(smallest_change);
  p->set_confidence(1 - kSequentialAlpha);
  p->clear_ci_low();
  p->clear_ci_high();
  p->clear_achieved_confidence();
  p->clear_resolvable_change();
  if (std::optional<double> median = Quantile(pairs, 0.5)) p->set_median_ratio(*median);
  const SequentialLook& look = d.look;
  p->set_note(d.withheld);
  if (look.low && look.high) {
    p->set_ci_low(*look.low);
    p->set_ci_high(*look.high);
    p->set_achieved_confidence(1 - kSequentialAlpha);
    p->set_resolvable_change(*look.resolvable_change);
  } else if (d.withheld.empty()) {
    p->set_note(absl::StrCat("an interval over build pairs needs ", FirstBoundedRound(), " of them (has ", look.rounds,
                             d.loaded_pairs ? " not discarded" : "", ")"));
  }
  p->set_claim(d.claim == SequentialOutcome::kFaster       ? v1::PairedEvidence::faster
               : d.claim == SequentialOutcome::kSlower     ? v1::PairedEvidence::slower
               : d.claim == SequentialOutcome::kEquivalent ? v1::PairedEvidence::equivalent
                                                           : v1::PairedEvidence::no_claim);
}

// Pairs round i of each run (by round number) and fills the paired evidence; rounds that do
// not pair up (different numbers) give a note and nothing else.
void SetPairedEvidence(const v1::BenchmarkReport& before, const v1::BenchmarkReport& after, v1::PairedEvidence* p) {
  p->set_confidence(kPairedConfidence);
  p->set_min_claimed_change(kPairedMinClaimedChange);
  p->set_method(kPairedMethod);
  const std::vector<std::pair<int, double>> b = RoundMedians(before), a = RoundMedians(after);
  const std::string& before_id = before.settings().timing().interleave_id();
  if (!b.empty() && !a.empty() && (before_id.empty() || before_id != after.settings().timing().interleave_id())) {
    p->set_note(
        "the runs' rounds were not interleaved in one job (their interleave_id differs or is missing): "
        "rounds cannot be paired");
    return;
  }
  std::vector<double> bm, am;  // PairedRatios names the counts when they differ
  for (const auto& [round, median] : b) bm.push_back(median);
  for (const auto& [round, median] : a) am.push_back(median);
  for (size_t i = 0; i < b.size() && i < a.size(); ++i) {
    if (b[i].first != a[i].first) {
      p->set_note(absl::StrCat("round ", b[i].first,
                               " of the baseline has no partner in the candidate: rounds cannot be paired"));
      return;
    }
  }
  const PairedRatioResult r = PairedRatios(bm, am, kPairedConfidence);
  for (double ratio : r.ratios) p->add_round_ratios(ratio);
  if (r.median_ratio) p->set_median_ratio(*r.median_ratio);
  if (r.ci_low) p->set_ci_low(*r.ci_low);
  if (r.ci_high) p->set_ci_high(*r.ci_high);
  if (r.achieved_confidence) p->set_achieved_confidence(*r.achieved_confidence);
  if (r.resolvable_change) p->set_resolvable_change(*r.resolvable_change);
  p->set_claim(r.claim == PairedClaim::kFaster   ? v1::PairedEvidence::faster
               : r.claim == PairedClaim::kSlower ? v1::PairedEvidence::slower
                                                 : v1::PairedEvidence::no_claim);
  p->set_note(r.note);
  const std::vector<int> units = RoundUnitsOf(before);
  if (r.ratios.size() == units.size() && std::set<int>(units.begin(), units.end()).size() >= 2) {
    SetBuildPairEvidence(units, RoundLoadsOf(before, after), before.settings().timing(), p);
  }
}

void Label(const v1::BenchmarkReport& before, const v1::BenchmarkReport& after, v1::Comparison* c) {
  if (before.timing().blocks_size() == 0 || after.timing().blocks_size() == 0) {
    c->set_latency_change(v1::Comparison::unavailable);
    c->set_latency_change_reason("a run has no timing blocks");
    return;
  }
  const v1::TimingSummary& b = before.timing().summary();
  const v1::TimingSummary& a = after.timing().summary();
  const double change = a.median_s() - b.median_s();
  const double spread = std::max(b.iqr_s(), a.iqr_s());
  if (std::fabs(change) <= spread) {
    c->set_latency_change(v1::Comparison::within_variability);
  } else {
    c->set_latency_change(change < 0 ? v1::Comparison::faster : v1::Comparison::slower);
  }
  c->set_latency_change_reason(
      absl::StrCat("median change ", FormatSignedMetric(change, "s"), " vs larger IQR ", FormatSeconds(spread), ": ",
                   std::fabs(change) <= spread ? "no larger than the spread" : "larger than the spread"));

  v1::LatencyEvidence* e = c->mutable_evidence();
  if (b.median_s() > 0) e->set_relative_change(change / b.median_s());
  const MannWhitneyResult mw =
      MannWhitneyU(PerCallTimes(before.timing().blocks()), PerCallTimes(after.timing().blocks()));
  if (mw.p_value) e->set_mann_whitney_p(*mw.p_value);
  e->set_mann_whitney_note(mw.note);
  SetPairedEvidence(before, after, e->mutable_paired());
}

}  // namespace

v1::Comparison CompareReports(const v1::BenchmarkReport& before, const v1::BenchmarkReport& after,
                              const v1::OutputCheck& check) {
  v1::Comparison c;
  c.set_schema_version(kSchemaVersion);
  c.set_created_at(NowRfc3339());
  *c.mutable_before() = before;
  *c.mutable_after() = after;
  *c.mutable_output_check() = check;
  *c.mutable_compatibility() = CheckCompatibility(before, after);
  *c.mutable_changed_settings() = ChangedSettings(before, after);
  const std::string withheld = WithheldReason(check, c.compatibility());
  *c.mutable_deltas() = ComputeDeltas(before, after, withheld);
  if (before.has_instructions() || after.has_instructions())
    *c.mutable_instructions() = DiffInstructions(before, after, withheld);
  if (withheld.empty()) {
    Label(before, after, &c);
  } else {
    c.set_latency_change(v1::Comparison::unavailable);
    c.set_latency_change_reason(withheld);
    c.mutable_evidence()->set_mann_whitney_note(withheld);
    c.mutable_evidence()->mutable_paired()->set_note(withheld);
  }
  for (const v1::Mismatch& m : c.compatibility().mismatches())
    if (m.before() == m.after())
      c.add_notes(m.field() + " is " + m.before() +
                  " on both runs: the same hardware cannot be established, so the "
                  "runs are not comparable; run where it can be read");
  c.add_notes(kSpreadNote);
  if (check.status() == v1::OutputCheck::not_provided)
    c.add_notes("No output check was run: the speed label says nothing about correctness.");
  c.add_notes(
      "Matching a few tensors is not a task-level accuracy guarantee; check representative outputs "
      "and task accuracy yourself.");
  return c;
}

v1::Comparison CompareBenchmarks(const v1::BenchmarkReport& before, const v1::BenchmarkReport& after,
                                 const CheckFn& check) {
  return CompareReports(before, after, RunOutputCheck(check));
}

}  // namespace torchscan
