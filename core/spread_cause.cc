#include "core/spread_cause.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/statistics.h"

namespace torchscan {
namespace {

// Interquartile range over median of `values`, or nullopt for fewer than two or a median <= 0.
std::optional<double> RelativeIqr(const std::vector<double>& values) {
  if (values.size() < 2) return std::nullopt;
  const std::optional<double> median = Quantile(values, 0.5);
  if (!median || *median <= 0) return std::nullopt;
  return (*Quantile(values, 0.75) - *Quantile(values, 0.25)) / *median;
}

// Per-call times of `timing`'s blocks [first, first + count), clamped to them.
std::vector<double> PerCall(const v1::Timing& timing, int64_t first, int64_t count) {
  std::vector<double> out;
  for (int64_t i = std::max<int64_t>(0, first); i < first + count && i < timing.blocks_size(); ++i)
    if (timing.blocks(i).calls() > 0) out.push_back(timing.blocks(i).duration_s() / timing.blocks(i).calls());
  return out;
}

std::string Percent(double fraction) { return absl::StrFormat("%.1f%%", 100 * fraction); }

std::string Cause(const v1::Timing& timing, double iqr_fraction) {
  if (timing.blocks_size() < kFewBlocksForQuartiles)
    return absl::StrCat("only ", timing.blocks_size(), timing.blocks_size() == 1 ? " block" : " blocks",
                        ", and the quartiles of so few are coarse (a slow model gets few calls in its timed work); "
                        "raise --min-run-time (min_run_time_s in a job file)");
  const bool sampled = timing.has_load() && timing.load().interval_s() > 0;
  const double share = sampled ? timing.load().other_cpu_share() : 0;
  if (sampled && share >= kLoadCauseShare)
    return absl::StrCat("other work: others used ", std::lround(100 * share), "% of CPUs ", timing.load().cpus(),
                        " while it was timed; close other work, or give torchscand a CPU set (cpu_set) no other "
                        "work uses");
  if (timing.rounds_size() >= kDriftRounds) {
    std::vector<double> medians, within;
    for (const v1::TimingRound& r : timing.rounds()) {
      medians.push_back(r.median_s());
      if (std::optional<double> spread = RelativeIqr(PerCall(timing, r.first_block(), r.block_count())))
        within.push_back(*spread);
    }
    const std::optional<double> between = RelativeIqr(medians);
    if (between && *between >= iqr_fraction / 2)
      return absl::StrCat("drift: the round medians spread by ", Percent(*between), " of their median",
                          within.empty() ? "" : ", blocks within a round by " + Percent(*Quantile(within, 0.5)),
                          ", so the speed changed while it was timed (frequency, or work that came and went); "
                          "rerun, or raise --min-run-time (min_run_time_s in a job file)");
  }
  return absl::StrCat(
      "the workload itself: ",
      sampled ? absl::StrCat("others used ", std::lround(100 * share), "% of CPUs ", timing.load().cpus(), ", ") : "",
      "blocks vary within the run (allocation, caches, thread scheduling); pin threads "
      "(--threads 1), or raise --min-run-time (min_run_time_s in a job file)");
}

}  // namespace

std::string HighIqrMessage(const v1::Timing& timing) {
  const double median = timing.summary().median_s();
  const double iqr = timing.summary().iqr_s();
  if (!(median > 0) || !(iqr > kHighIqrFraction * median)) return "";
  const double fraction = iqr / median;
  return absl::StrCat("IQR is ", Percent(fraction), " of the median (above ", std::lround(100 * kHighIqrFraction),
                      "%); likely cause: ", Cause(timing, fraction));
}

void SetHighIqrWarning(const v1::Timing& timing, google::protobuf::RepeatedPtrField<v1::Warning>* warnings) {
  const std::string message = HighIqrMessage(timing);
  bool kept = false;
  for (int i = 0; i < warnings->size();) {
    v1::Warning& w = (*warnings)[i];
    if (w.code() != "high_iqr") {
      ++i;
    } else if (!message.empty() && !kept) {
      w.set_message(message);
      kept = true;
      ++i;
    } else {
      warnings->DeleteSubrange(i, 1);
    }
  }
  if (!message.empty() && !kept) {
    v1::Warning* w = warnings->Add();
    w->set_code("high_iqr");
    w->set_message(message);
  }
}

}  // namespace torchscan
