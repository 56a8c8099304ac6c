#include "core/noise_floor.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "core/paired_ratio.h"
#include "core/statistics.h"

namespace torchscan {
namespace {

bool IsFalseLabel(const v1::Comparison& c) {
  return c.latency_change() == v1::Comparison::faster || c.latency_change() == v1::Comparison::slower;
}

std::optional<double> RelativeChange(const v1::Comparison& c) {
  if (c.evidence().has_relative_change()) return c.evidence().relative_change();
  return std::nullopt;
}

// "linear (execution_mode batch, dtype float32)": the model and the workload facts that
// change its timing most (the report's workload map holds many more).
std::string DescribeWorkload(const v1::BenchmarkReport& run) {
  std::vector<std::string> facts;
  for (const char* key : {"method", "execution_mode", "dtype"})
    if (auto it = run.workload().find(key); it != run.workload().end())
      facts.push_back(absl::StrCat(key, " ", it->second));
  const std::string model = run.model().empty() ? "workload" : run.model();
  return facts.empty() ? model : absl::StrCat(model, " (", absl::StrJoin(facts, ", "), ")");
}

// Share of `lists` (each scaled by `factor`) whose claim is `wanted`.
double ClaimShare(const std::vector<const std::vector<double>*>& lists, double factor, PairedClaim wanted) {
  int hits = 0;
  for (const std::vector<double>* ratios : lists) {
    std::vector<double> scaled(*ratios);
    for (double& r : scaled) r *= factor;
    const std::vector<double> ones(scaled.size(), 1.0);
    if (PairedRatios(ones, scaled, kPairedConfidence).claim == wanted) ++hits;
  }
  return static_cast<double>(hits) / static_cast<double>(lists.size());
}

// The smallest grid d whose scaled claims reach `power` in direction `wanted`.
std::optional<double> SmallestResolved(const std::vector<const std::vector<double>*>& lists, PairedClaim wanted,
                                       double power) {
  const int steps = static_cast<int>(std::lround(kNoiseFloorGridMax / kNoiseFloorGridStep));
  for (int i = 1; i <= steps; ++i) {
    const double d = i * kNoiseFloorGridStep;
    const double factor = wanted == PairedClaim::kSlower ? 1 + d : 1 / (1 + d);
    // A tiny tolerance: 18 of 20 pairs is 0.9 exactly, whatever the rounding of the share.
    if (ClaimShare(lists, factor, wanted) >= power - 1e-12) return d;
  }
  return std::nullopt;
}

std::optional<absl::Time> ParseTime(const std::string& text) {
  absl::Time t;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, text, &t, &error)) return std::nullopt;
  return t;
}

std::string Days(double seconds) { return absl::StrCat(std::round(seconds / 86400 * 10) / 10, " days"); }

void SetAge(v1::NoiseFloor* floor, const std::string& now, double max_age_s, std::vector<std::string>* reasons) {
  const std::optional<absl::Time> measured = ParseTime(floor->measured_at());
  const std::optional<absl::Time> at = ParseTime(now);
  if (!measured || !at) {
    floor->set_age_s(0);
    reasons->push_back(absl::StrCat("its age is unknown (measured_at \"", floor->measured_at(), "\")"));
    return;
  }
  const double age = std::max(0.0, absl::ToDoubleSeconds(*at - *measured));
  floor->set_age_s(age);
  if (max_age_s > 0 && age > max_age_s)
    reasons->push_back(absl::StrCat("older than ", Days(max_age_s), " (", Days(age), ")"));
}

void Finish(v1::NoiseFloor* floor, const std::vector<std::string>& reasons) {
  floor->set_stale(!reasons.empty());
  floor->set_stale_reason(absl::StrJoin(reasons, "; "));
}

}  // namespace

std::optional<double> EmpiricalResolvableChange(const std::vector<std::vector<double>>& round_ratios, double power,
                                                int* pairs_used) {
  const int needed = MinRoundsForConfidence(kPairedConfidence);
  std::vector<const std::vector<double>*> usable;
  for (const std::vector<double>& ratios : round_ratios) {
    const bool valid = std::all_of(ratios.begin(), ratios.end(), [](double r) { return std::isfinite(r) && r > 0; });
    if (valid && static_cast<int>(ratios.size()) >= needed) usable.push_back(&ratios);
  }
  if (pairs_used != nullptr) *pairs_used = static_cast<int>(usable.size());
  if (usable.empty()) return std::nullopt;
  const std::optional<double> slower = SmallestResolved(usable, PairedClaim::kSlower, power);
  const std::optional<double> faster = SmallestResolved(usable, PairedClaim::kFaster, power);
  if (!slower || !faster) return std::nullopt;
  return std::max(*slower, *faster);
}

v1::NoiseFloor ComputeNoiseFloor(const std::vector<v1::Comparison>& pairs) {
  v1::NoiseFloor floor;
  floor.set_pairs(static_cast<int>(pairs.size()));
  if (pairs.empty()) {
    floor.set_note("no A/A pairs: nothing measured");
    return floor;
  }
  const v1::BenchmarkReport& first = pairs.front().before();
  floor.set_hostname(first.environment().hostname());
  floor.set_cpu_model(first.environment().cpu_model());
  const NoiseFloorSettings settings = SettingsOfComparison(pairs.front());
  floor.set_device(settings.device);
  floor.set_min_run_time_s(settings.min_run_time_s);
  floor.set_rounds(settings.rounds.value_or(1));
  floor.set_intra_op_threads(settings.intra_op_threads);
  floor.set_inter_op_threads(settings.inter_op_threads);
  floor.set_workload(DescribeWorkload(first));

  int labels = 0, claims = 0;
  std::vector<double> changes;
  std::vector<std::vector<double>> round_ratios;
  for (const v1::Comparison& c : pairs) {
    if (IsFalseLabel(c)) ++labels;
    if (c.evidence().paired().claim() != v1::PairedEvidence::no_claim) ++claims;
    if (std::optional<double> change = RelativeChange(c); change && std::isfinite(*change)) changes.push_back(*change);
    const auto& r = c.evidence().paired().round_ratios();
    round_ratios.emplace_back(r.begin(), r.end());
  }
  const double n = static_cast<double>(pairs.size());
  floor.set_false_labels(labels);
  floor.set_false_label_rate(labels / n);
  floor.set_false_claims(claims);
  floor.set_false_claim_rate(claims / n);
  if (!changes.empty()) {
    floor.set_ratio_min(*std::min_element(changes.begin(), changes.end()));
    floor.set_ratio_p5(*Quantile(changes, 0.05));
    floor.set_ratio_median(*Quantile(changes, 0.5));
    floor.set_ratio_p95(*Quantile(changes, 0.95));
    floor.set_ratio_max(*std::max_element(changes.begin(), changes.end()));
  }

  floor.set_method(absl::StrCat("each A/A pair's round ratios scaled by 1+d (and 1/(1+d)); the smallest d in ",
                                kNoiseFloorGridStep * 100, " % steps at which ", kNoiseFloorPower * 100,
                                " % of the pairs' Hodges-Lehmann claims (", kPairedConfidence * 100,
                                " % confidence) call it slower (faster)"));
  floor.set_power(kNoiseFloorPower);
  int used = 0;
  const std::optional<double> resolvable = EmpiricalResolvableChange(round_ratios, kNoiseFloorPower, &used);
  if (resolvable) {
    floor.set_resolvable_change(*resolvable);
    if (used < floor.pairs())
      floor.set_note(absl::StrCat("resolvable_change rests on ", used, " of ", floor.pairs(),
                                  " pairs; the others had no round ratios for a claim"));
  } else if (used == 0) {
    const int needed = MinRoundsForConfidence(kPairedConfidence);
    floor.set_note(absl::StrCat("resolvable_change unknown: the paired claim needs ", needed,
                                " rounds or more per pair (these have ", floor.rounds(), "); calibrate with --rounds ",
                                needed, " or more"));
  } else {
    floor.set_note(absl::StrCat("resolvable_change unknown: no change up to ", kNoiseFloorGridMax * 100,
                                " % is claimed in ", kNoiseFloorPower * 100, " % of the pairs"));
  }
  return floor;
}

NoiseFloorSettings SettingsOfReport(const v1::BenchmarkReport& report) {
  NoiseFloorSettings s;
  s.device = report.settings().device();
  s.min_run_time_s = report.settings().timing().min_run_time_s();
  s.intra_op_threads = report.settings().threads().intra_op();
  s.inter_op_threads = report.settings().threads().inter_op();
  return s;
}

NoiseFloorSettings SettingsOfComparison(const v1::Comparison& comparison) {
  NoiseFloorSettings s = SettingsOfReport(comparison.before());
  // The rounds asked for: a slow model's plan may time fewer, by a count that moves with its
  // measured block length, which must not make a calibrate of the same workload stale.
  const int requested = comparison.round_plan().requested_rounds();
  s.rounds = requested > 0 ? requested : std::max(1, comparison.before().settings().timing().rounds());
  return s;
}

v1::NoiseFloor AttachNoiseFloor(const v1::NoiseFloor& floor, const NoiseFloorSettings& settings, const std::string& now,
                                double max_age_s) {
  v1::NoiseFloor attached = floor;
  std::vector<std::string> reasons;
  SetAge(&attached, now, max_age_s, &reasons);
  std::vector<std::string> differ;  // "min_run_time_s 0.2 (this run 0.05)"
  const auto compare = [&differ](const char* name, const auto& measured, const auto& now) {
    if (measured != now) differ.push_back(absl::StrCat(name, " ", measured, " (this run ", now, ")"));
  };
  compare("device", floor.device(), settings.device);
  compare("min_run_time_s", floor.min_run_time_s(), settings.min_run_time_s);
  if (settings.rounds) compare("rounds", std::max(1, floor.rounds()), *settings.rounds);
  compare("intra_op_threads", floor.intra_op_threads(), settings.intra_op_threads);
  compare("inter_op_threads", floor.inter_op_threads(), settings.inter_op_threads);
  if (!differ.empty()) reasons.push_back("measured at other settings: " + absl::StrJoin(differ, ", "));
  Finish(&attached, reasons);
  return attached;
}

v1::NoiseFloor AgedNoiseFloor(const v1::NoiseFloor& floor, const std::string& now, double max_age_s) {
  v1::NoiseFloor aged = floor;
  std::vector<std::string> reasons;
  SetAge(&aged, now, max_age_s, &reasons);
  Finish(&aged, reasons);
  return aged;
}

}  // namespace torchscan
