#include "report/verdict_sentence.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/number_format.h"
#include "report/evidence_view.h"

namespace torchscan::report {
namespace {

// "0.2% slower" / "0.3% faster" / "no change" for a ratio of candidate to baseline time.
std::string Direction(double ratio) {
  if (ratio > 1) return UnsignedPercent(ratio - 1) + " slower";
  if (ratio < 1) return UnsignedPercent(1 - ratio) + " faster";
  return "no change";
}

// "90% interval 1.2% to 3.0%" in the claim's own direction; signed changes otherwise.
std::string Interval(const v1::PairedEvidence& p) {
  const std::string level = UnsignedPercent(p.confidence());
  if (p.claim() == v1::PairedEvidence::slower)
    return absl::StrCat(level, " interval ", UnsignedPercent(p.ci_low() - 1), " to ", UnsignedPercent(p.ci_high() - 1));
  if (p.claim() == v1::PairedEvidence::faster)
    return absl::StrCat(level, " interval ", UnsignedPercent(1 - p.ci_high()), " to ", UnsignedPercent(1 - p.ci_low()));
  return absl::StrCat(level, " interval ", FormatPercent(p.ci_low() - 1), " to ", FormatPercent(p.ci_high() - 1));
}

// The paired evidence's part of the sentence.
std::string ClaimPart(const v1::PairedEvidence& p) {
  if (!p.has_ci_low() || !p.has_ci_high() || !p.has_median_ratio())
    return absl::StrCat("No paired claim",
                        p.note().empty() ? " (no interval was recorded)" : absl::StrCat(" (", p.note(), ")"));
  const std::string smallest = UnsignedPercent(p.min_claimed_change());
  switch (p.claim()) {
    case v1::PairedEvidence::slower:
    case v1::PairedEvidence::faster: return absl::StrCat(Direction(p.median_ratio()), " (", Interval(p), ")");
    case v1::PairedEvidence::equivalent:
      return absl::StrCat("No change larger than ", smallest, " (median ", Direction(p.median_ratio()), ", ",
                          Interval(p), ")");
    default: break;
  }
  if (!p.note().empty())  // a decided look withheld, or a compare timed mostly under load
    return absl::StrCat("No paired claim (", p.note(), "; median ", Direction(p.median_ratio()), ", ", Interval(p),
                        ")");
  const bool capped = p.stop_reason().find("time cap") != std::string::npos;
  return absl::StrCat("Undecided at \u00b1", smallest, capped ? " when the time cap was reached" : "", " (median ",
                      Direction(p.median_ratio()), ", ", Interval(p), ", neither inside nor outside \u00b1", smallest,
                      ")");
}

// The guide's rule in the label's numbers: "median change +0.1%" and "IQR 2.0% of the median".
struct LabelNumbers {
  std::string change;
  std::string spread;
};

// `change_name`: "median change" alone, "pooled change" beside the paired rounds' median (one
// median per sentence).
LabelNumbers NumbersOf(const v1::Comparison& c, const std::string& change_name = "median change") {
  const v1::TimingSummary& b = c.before().timing().summary();
  const v1::TimingSummary& a = c.after().timing().summary();
  LabelNumbers n;
  n.change = change_name + " " +
             (c.evidence().has_relative_change() ? FormatPercent(c.evidence().relative_change()) : "unknown");
  const double spread = std::max(b.iqr_s(), a.iqr_s());
  n.spread = b.median_s() > 0 ? absl::StrCat("IQR ", UnsignedPercent(spread / b.median_s()), " of the median")
                              : absl::StrCat("IQR ", FormatSeconds(spread));
  return n;
}

// The guide's label's part: why it says what it says, next to the claim.
std::string LabelPart(const v1::Comparison& c) {
  const v1::PairedEvidence::Claim claim = c.evidence().paired().claim();
  const bool has_interval = c.evidence().paired().has_ci_low() && c.evidence().paired().has_ci_high();
  const LabelNumbers n = NumbersOf(c, c.evidence().paired().has_median_ratio() ? "pooled change" : "median change");
  const char* label = LatencyLabelName(c.latency_change());
  if (c.latency_change() == v1::Comparison::within_variability) {
    if (has_interval && (claim == v1::PairedEvidence::slower || claim == v1::PairedEvidence::faster))
      return absl::StrCat("smaller than the runs' spread (", n.spread, "), so the guide's label is within_variability");
    return absl::StrCat("the guide's label is within_variability",
                        claim == v1::PairedEvidence::equivalent ? " too" : "", " (", n.change, ", within the ",
                        n.spread, ")");
  }
  const bool label_slower = c.latency_change() == v1::Comparison::slower;
  const std::string rule = absl::StrCat(n.change, ", more than the ", n.spread);
  if (has_interval &&
      ((claim == v1::PairedEvidence::slower && label_slower) || (claim == v1::PairedEvidence::faster && !label_slower)))
    return absl::StrCat("larger than the runs' spread (", n.spread, "), so the guide's label is ", label, " too");
  if (has_interval && claim == v1::PairedEvidence::equivalent)
    return absl::StrCat("the guide's label is ", label, " (", rule,
                        "): the pooled medians moved, but the paired rounds, which cancel drift between the runs, "
                        "bound the change within the smallest one that matters");
  if (has_interval && claim != v1::PairedEvidence::no_claim)
    return absl::StrCat("the guide's label says ", label, " (", rule,
                        "): the two disagree, so neither is to be trusted; rerun on a quieter machine");
  return absl::StrCat("the guide's label is ", label, " (", rule, "), which the paired rounds do not confirm");
}

}  // namespace

std::string VerdictSentence(const v1::Comparison& comparison) {
  if (WithheldBecause(comparison) != Withheld::kNone)
    return absl::StrCat("No speed verdict: ", WithheldDetail(comparison), ".");
  if (comparison.latency_change() == v1::Comparison::unavailable)
    return absl::StrCat("No speed verdict: ", comparison.latency_change_reason(), ".");
  const v1::PairedEvidence& p = comparison.evidence().paired();
  if (p.round_ratios().empty() && !(p.has_ci_low() && p.has_ci_high())) {
    // No rounds to pair (a single pass, the guide's example): the guide's label speaks alone.
    const LabelNumbers n = NumbersOf(comparison);
    const bool within = comparison.latency_change() == v1::Comparison::within_variability;
    return absl::StrCat(within                                                  ? "Within variability"
                        : comparison.latency_change() == v1::Comparison::faster ? "Faster"
                                                                                : "Slower",
                        " by the guide's rule (", n.change, within ? ", within the " : ", more than the ", n.spread,
                        "); no paired claim", p.note().empty() ? "" : absl::StrCat(" (", p.note(), ")"), ".");
  }
  return absl::StrCat(ClaimPart(p), "; ", LabelPart(comparison), ".");
}

std::vector<VerdictField> VerdictFields(const v1::Comparison& c) {
  std::vector<VerdictField> fields;
  const v1::OutputCheck& check = c.output_check();
  fields.push_back({"Output check", "check", CheckStatusName(check.status()),
                    check.status() == v1::OutputCheck::not_provided
                        ? "no check was run: the verdict says nothing about correctness"
                        : check.message(),
                    check.status() == v1::OutputCheck::passed   ? Tone::kGood
                    : check.status() == v1::OutputCheck::failed ? Tone::kBad
                                                                : Tone::kDoubt});
  const Withheld withheld = WithheldBecause(c);
  if (withheld != Withheld::kNone) {
    const std::string why = absl::StrCat("because ", WithheldText(withheld));
    fields.push_back({"Latency change", "latency", "withheld", why, Tone::kBad});  // the claim with it
  } else {
    const v1::PairedEvidence& p = c.evidence().paired();
    const bool interval = p.has_ci_low() && p.has_ci_high() && p.has_median_ratio();
    const std::string smallest = UnsignedPercent(p.min_claimed_change());
    VerdictField paired{"Paired rounds", "paired", "no claim", p.note(), Tone::kDoubt};
    if (interval) {
      paired.detail = Interval(p);
      switch (p.claim()) {
        case v1::PairedEvidence::slower: paired.value = Direction(p.median_ratio()), paired.tone = Tone::kBad; break;
        case v1::PairedEvidence::faster: paired.value = Direction(p.median_ratio()), paired.tone = Tone::kGood; break;
        case v1::PairedEvidence::equivalent:
          paired.value = "no change > " + smallest, paired.tone = Tone::kNeutral;
          break;
        default:
          paired.value = p.note().empty() ? "undecided at \u00b1" + smallest : "no claim";
          paired.detail = absl::StrCat(p.note().empty() ? "" : p.note() + "; ", "median ", Direction(p.median_ratio()),
                                       ", ", Interval(p));
      }
    } else if (p.note().empty() && p.round_ratios().empty()) {
      paired.detail = "no timing rounds to pair";
    }
    fields.push_back(std::move(paired));
    const auto label = c.latency_change();
    const LabelNumbers n = NumbersOf(c);
    const bool within = label == v1::Comparison::within_variability;
    fields.push_back({"Latency change", "latency", LatencyLabelName(label),
                      label == v1::Comparison::unavailable
                          ? c.latency_change_reason()
                          : absl::StrCat(n.change, within ? ", within the " : ", more than the ", n.spread),
                      label == v1::Comparison::faster        ? Tone::kGood
                      : label == v1::Comparison::slower      ? Tone::kBad
                      : label == v1::Comparison::unavailable ? Tone::kDoubt
                                                             : Tone::kNeutral});
  }
  const v1::Compatibility& compat = c.compatibility();
  fields.push_back({"Compatibility", "compat", compat.compatible() ? "compatible" : "not comparable",
                    compat.compatible()
                        ? absl::StrCat(c.changed_settings_size(),
                                       c.changed_settings_size() == 1 ? " changed setting" : " changed settings")
                        : MismatchesText(compat),
                    compat.compatible() ? Tone::kGood : Tone::kBad});
  return fields;
}

}  // namespace torchscan::report
