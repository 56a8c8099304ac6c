#include "report/round_plan_text.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/number_format.h"
#include "report/evidence_view.h"

namespace torchscan::report {
namespace {

constexpr size_t kOrderStepsShown = 4;  // two rounds: enough to show the ABBA pattern

std::string ShortOrder(const std::string& order) {
  std::vector<std::string> steps = absl::StrSplit(order, ", ");
  if (steps.size() <= kOrderStepsShown) return order;
  steps.resize(kOrderStepsShown);
  return absl::StrJoin(steps, ", ") + ", \u2026";
}

std::string BlockSizes(const v1::RoundPlan& p) {
  if (p.baseline_calls_per_block() == p.candidate_calls_per_block())
    return absl::StrCat(FormatCount(p.baseline_calls_per_block()),
                        p.baseline_calls_per_block() == 1 ? " call per block" : " calls per block");
  return absl::StrCat(FormatCount(p.baseline_calls_per_block()), " and ", FormatCount(p.candidate_calls_per_block()),
                      " calls per block");
}

}  // namespace

std::string DescribeRoundPlan(const v1::RoundPlan& p) {
  if (p.rounds() < 1) return "";
  if (p.rounds() == 1)
    return absl::StrCat("one pass of each run (", p.order(), "), ", FormatSeconds(p.min_run_time_s()),
                        " each; warm-up once per run (", BlockSizes(p), ")");
  return absl::StrCat(p.rounds(), " alternating rounds (", ShortOrder(p.order()), "), each run timing ",
                      FormatSeconds(p.round_min_run_time_s()), " per round, ", FormatSeconds(p.min_run_time_s()),
                      " in all; warm-up and block size once per run (", BlockSizes(p), ")",
                      p.note().empty() ? "" : "; " + p.note());
}

std::string DescribeComparisonPlan(const v1::Comparison& c) {
  const v1::RoundPlan& p = c.round_plan();
  std::string text = DescribeRoundPlan(p);
  if (text.empty() || p.rounds() <= 1) return text;
  // The longer of the two runs' blocks, from what each timed: per-call median x calls.
  double block_s = 0;
  for (const v1::BenchmarkReport* run : {&c.before(), &c.after()})
    block_s =
        std::max(block_s, run->timing().summary().median_s() * static_cast<double>(run->timing().calls_per_block()));
  if (block_s > 0 && p.round_min_run_time_s() > 0) {
    const double per_share = p.round_min_run_time_s() / block_s;
    absl::StrAppend(&text, per_share < 1.5 ? absl::StrCat("; each round timed one block of ", FormatSeconds(block_s),
                                                          " (the median timed block)",
                                                          per_share < 1 ? ", longer than its share" : "")
                                           : absl::StrCat("; the median timed block took ", FormatSeconds(block_s),
                                                          ", about ", std::lround(per_share), " to a round's share"));
  }
  const v1::TimingSettings& t = c.before().settings().timing();
  if (t.build_pairs() > 1) {
    int later_rounds = 0;  // the rounds of build pairs 2, 3 ...
    for (const v1::TimingRound& r : c.before().timing().rounds()) later_rounds += r.unit() >= 2;
    const int per_pair = later_rounds / (t.build_pairs() - 1);
    // Rounds per pair only where the runs recorded them (a file without timing.rounds has none).
    absl::StrAppend(&text, "; then ", t.build_pairs() - 1,
                    t.build_pairs() == 2 ? " more build pair" : " more build pairs",
                    per_pair > 0 ? absl::StrCat(" (both workloads built again, warmed up and timed for ", per_pair,
                                                " alternating rounds each)")
                                 : " (both workloads built again and warmed up each time)",
                    " until the paired evidence decided at \u00b1", UnsignedPercent(t.smallest_change()),
                    " or the time cap was reached");
  }
  return text;
}

}  // namespace torchscan::report
