#include "report/validate.h"

#include <algorithm>
#include <utility>

#include <cmath>

#include "absl/strings/str_format.h"

namespace torchscan::report {
namespace {

absl::Status Error(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(field + ": " + what);
}

absl::Status CheckVersion(int found, int expected, const std::string& field) {
  if (found == expected) return absl::OkStatus();
  if (found == 0) return Error(field, absl::StrFormat("missing; this TorchScan reads schema_version %d", expected));
  return Error(field, absl::StrFormat("is %d but this TorchScan reads %d; re-create the file with this version "
                                      "or load it with the TorchScan that wrote it",
                                      found, expected));
}

// Timing.load.other_cpu_share is clamped to [0, 1] by its producer (core/cpu_load.h); this
// much beyond either end is still read (a printed or rounded figure), more is refused.
constexpr double kShareTolerance = 0.01;

absl::Status ValidateLoad(const v1::TimingLoad& load, const std::string& p) {
  const double share = load.other_cpu_share();
  if (!std::isfinite(share) || share < -kShareTolerance || share > 1 + kShareTolerance)
    return Error(p + "other_cpu_share",
                 absl::StrFormat("must be a finite fraction of the CPUs from 0 to 1, got %g", share));
  if (!std::isfinite(load.other_cpu_s()))
    return Error(p + "other_cpu_s", absl::StrFormat("must be a finite number of seconds, got %g", load.other_cpu_s()));
  if (!std::isfinite(load.interval_s()) || load.interval_s() < 0)
    return Error(p + "interval_s",
                 absl::StrFormat("must be a finite number of seconds >= 0, got %g", load.interval_s()));
  if (load.cpu_count() < 1)
    return Error(p + "cpu_count", absl::StrFormat("must be at least 1, got %d", load.cpu_count()));
  for (const auto& [field, value] :
       {std::pair{"loadavg_1m_start", load.loadavg_1m_start()}, std::pair{"loadavg_1m_end", load.loadavg_1m_end()}})
    if (!std::isfinite(value) || value < 0)
      return Error(p + field, absl::StrFormat("must be a finite load figure >= 0, got %g", value));
  return absl::OkStatus();
}

// A ratio field, when set, is a finite number > 0.
absl::Status CheckRatio(bool has, double value, const std::string& field) {
  if (!has || (std::isfinite(value) && value > 0)) return absl::OkStatus();
  return Error(field, absl::StrFormat("must be a finite ratio > 0, got %g", value));
}

absl::Status CheckProbability(double value, const std::string& field) {
  if (std::isfinite(value) && value >= 0 && value <= 1) return absl::OkStatus();
  return Error(field, absl::StrFormat("must be a probability in [0, 1], got %g", value));
}

// `span` (at `at`) starts at or after `bound`, where the previous span `begins` or `ends`;
// otherwise the error, ending with the `rule` broken.
absl::Status StartsAtOrAfter(const v1::PhaseSpan& span, const std::string& at, double bound,
                             const std::string& begins_or_ends, const std::string& rule) {
  if (span.start_s() >= bound) return absl::OkStatus();
  return Error(at + ".start_s", absl::StrFormat("%g is before the previous span %s (%g); %s", span.start_s(),
                                                begins_or_ends, bound, rule));
}

// A timing phase: an own span of warm-up or timing ("warm-up baseline", "timing candidate").
bool IsTimingPhase(const v1::PhaseSpan& span) {
  return !span.concurrent() && (span.phase().rfind("timing ", 0) == 0 || span.phase().rfind("warm-up ", 0) == 0);
}

// No concurrent span overlaps a timing phase (spans that touch do not overlap).
absl::Status CheckNothingBesideTiming(const v1::Timeline& t, const std::string& field) {
  for (int i = 0; i < t.spans_size(); ++i) {
    const v1::PhaseSpan& c = t.spans(i);
    if (!c.concurrent()) continue;
    for (const v1::PhaseSpan& timing : t.spans())
      if (IsTimingPhase(timing) && c.start_s() < timing.end_s() && timing.start_s() < c.end_s())
        return Error(
            absl::StrFormat("%s.spans[%d]", field, i),
            absl::StrFormat("concurrent phase \"%s\" (%g-%g s) overlaps timing phase \"%s\" (%g-%g s); "
                            "nothing may run beside timing",
                            c.phase(), c.start_s(), c.end_s(), timing.phase(), timing.start_s(), timing.end_s()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidatePairedEvidence(const v1::PairedEvidence& p, const std::string& f) {
  for (int i = 0; i < p.round_ratios_size(); ++i)
    if (absl::Status s = CheckRatio(true, p.round_ratios(i), absl::StrFormat("%s.round_ratios[%d]", f, i)); !s.ok())
      return s;
  if (absl::Status s = CheckRatio(p.has_median_ratio(), p.median_ratio(), f + ".median_ratio"); !s.ok()) return s;
  if (absl::Status s = CheckRatio(p.has_ci_low(), p.ci_low(), f + ".ci_low"); !s.ok()) return s;
  if (absl::Status s = CheckRatio(p.has_ci_high(), p.ci_high(), f + ".ci_high"); !s.ok()) return s;
  if (p.has_ci_low() != p.has_ci_high())
    return Error(f + (p.has_ci_low() ? ".ci_high" : ".ci_low"), "missing; an interval has both ends or neither");
  if (p.has_ci_low() && p.ci_low() > p.ci_high())
    return Error(f + ".ci_low", absl::StrFormat("%g is above ci_high (%g)", p.ci_low(), p.ci_high()));
  if (absl::Status s = CheckProbability(p.confidence(), f + ".confidence"); !s.ok()) return s;
  if (p.has_achieved_confidence()) {
    if (absl::Status s = CheckProbability(p.achieved_confidence(), f + ".achieved_confidence"); !s.ok()) return s;
    if (p.achieved_confidence() < p.confidence())
      return Error(f + ".achieved_confidence",
                   absl::StrFormat("%g is below the stated confidence %g", p.achieved_confidence(), p.confidence()));
  }
  if (p.has_resolvable_change() && !(std::isfinite(p.resolvable_change()) && p.resolvable_change() >= 0))
    return Error(f + ".resolvable_change",
                 absl::StrFormat("must be a finite relative change >= 0, got %g", p.resolvable_change()));
  if (p.claim() == v1::PairedEvidence::faster && !(p.has_ci_high() && p.ci_high() < 1))
    return Error(f + ".claim", "is faster but the interval is not wholly below 1; faster needs ci_high < 1");
  if (p.claim() == v1::PairedEvidence::slower && !(p.has_ci_low() && p.ci_low() > 1))
    return Error(f + ".claim", "is slower but the interval is not wholly above 1; slower needs ci_low > 1");
  if (p.claim() == v1::PairedEvidence::equivalent &&
      !(p.has_ci_low() && p.ci_low() >= 1 / (1 + p.min_claimed_change()) && p.ci_high() <= 1 + p.min_claimed_change()))
    return Error(f + ".claim",
                 "is equivalent but the interval is not wholly within the smallest change that matters "
                 "(min_claimed_change)");
  return absl::OkStatus();
}

bool NotTimed(const v1::BenchmarkReport& r) {
  return std::any_of(r.warnings().begin(), r.warnings().end(),
                     [](const v1::Warning& w) { return w.code() == kNotTimedWarning; });
}

absl::Status ValidateReport(const v1::BenchmarkReport& r, int schema_version, const std::string& p) {
  if (absl::Status s = CheckVersion(r.schema_version(), schema_version, p + "schema_version"); !s.ok()) return s;
  if (!r.has_settings()) return Error(p + "settings", "missing; a report records how it was measured");
  if (!r.has_environment()) return Error(p + "environment", "missing; a report records where it was measured");
  if (!r.has_timing()) return Error(p + "timing", "missing; a report holds its timing blocks");
  const bool not_timed = NotTimed(r);
  if (not_timed && !r.timing().blocks().empty())
    return Error(p + "timing.blocks", "present in a run whose warning says it was not timed (not_timed)");
  if (r.timing().blocks().empty() && !not_timed)
    return Error(p + "timing.blocks", "missing or empty; keep every raw block");
  for (int i = 0; i < r.timing().blocks_size(); ++i) {
    const v1::TimingBlock& b = r.timing().blocks(i);
    const std::string field = absl::StrFormat("%stiming.blocks[%d]", p, i);
    if (b.calls() < 1) return Error(field + ".calls", absl::StrFormat("must be at least 1, got %d", b.calls()));
    if (!std::isfinite(b.duration_s()) || b.duration_s() < 0)
      return Error(field + ".duration_s",
                   absl::StrFormat("must be a finite number of seconds >= 0, got %g", b.duration_s()));
  }
  if (r.timing().summary().block_count() != r.timing().blocks_size())
    return Error(p + "timing.summary.block_count",
                 absl::StrFormat("is %d but timing.blocks holds %d blocks; the file was edited or truncated",
                                 r.timing().summary().block_count(), r.timing().blocks_size()));
  if (!(r.work_units() > 0) || !std::isfinite(r.work_units()))
    return Error(p + "work_units",
                 absl::StrFormat("must be a positive number of units per call, got %g", r.work_units()));
  if (r.timing().has_load())
    if (absl::Status s = ValidateLoad(r.timing().load(), p + "timing.load."); !s.ok()) return s;
  if (r.work_unit().empty()) return Error(p + "work_unit", "missing; name the unit of work, e.g. \"samples\"");
  if (absl::Status s = ValidateTimeline(r.timeline(), p + "timeline"); !s.ok()) return s;
  return ValidateTimeline(r.job_timeline(), p + "job_timeline");
}

absl::Status ValidateComparison(const v1::Comparison& c, int schema_version) {
  if (absl::Status s = CheckVersion(c.schema_version(), schema_version, "schema_version"); !s.ok()) return s;
  if (!c.has_before()) return Error("before", "missing; a comparison holds both reports");
  if (!c.has_after()) return Error("after", "missing; a comparison holds both reports");
  if (!c.has_output_check()) return Error("output_check", "missing; record not_provided when no check ran");
  if (!c.has_compatibility()) return Error("compatibility", "missing");
  if (absl::Status s = ValidateReport(c.before(), schema_version, "before."); !s.ok()) return s;
  if (absl::Status s = ValidateReport(c.after(), schema_version, "after."); !s.ok()) return s;
  for (const auto& [run, name] : {std::pair{&c.before(), "before"}, std::pair{&c.after(), "after"}})
    if (NotTimed(*run) && c.output_check().status() != v1::OutputCheck::failed)
      return Error(std::string(name) + ".warnings",
                   "say the run was not timed (not_timed), but the output check did not fail: only a failed check "
                   "ends a comparison before timing");
  if (absl::Status s = ValidatePairedEvidence(c.evidence().paired(), "evidence.paired"); !s.ok()) return s;
  if (absl::Status s = ValidateTimeline(c.timeline(), "timeline"); !s.ok()) return s;
  return ValidateTimeline(c.job_timeline(), "job_timeline");
}

absl::Status ValidateTimeline(const v1::Timeline& t, const std::string& field) {
  if (t.spans().empty()) return absl::OkStatus();
  if (t.started_at().empty())
    return Error(field + ".started_at", "missing; a timeline with spans records the wall time of its time 0");
  double previous_start = 0, previous_own_end = 0;
  for (int i = 0; i < t.spans_size(); ++i) {
    const v1::PhaseSpan& span = t.spans(i);
    const std::string at = absl::StrFormat("%s.spans[%d]", field, i);
    if (span.phase().empty()) return Error(at + ".phase", "missing; name the phase, e.g. \"timing baseline\"");
    if (!std::isfinite(span.start_s()) || span.start_s() < 0)
      return Error(at + ".start_s", absl::StrFormat("must be a finite number of seconds >= 0, got %g", span.start_s()));
    if (!std::isfinite(span.end_s()) || span.end_s() < span.start_s())
      return Error(at + ".end_s", absl::StrFormat("must be a finite number of seconds >= start_s (%g), got %g",
                                                  span.start_s(), span.end_s()));
    if (absl::Status s =
            StartsAtOrAfter(span, at, previous_start, "begins", "spans are listed in the order the phases began");
        !s.ok())
      return s;
    previous_start = span.start_s();
    if (span.concurrent()) continue;
    if (absl::Status s = StartsAtOrAfter(span, at, previous_own_end, "ends",
                                         "the worker's own phases run one at a time, in the order listed (only "
                                         "concurrent spans may overlap)");
        !s.ok())
      return s;
    previous_own_end = span.end_s();
  }
  return CheckNothingBesideTiming(t, field);
}

}  // namespace torchscan::report
