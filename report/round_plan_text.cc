#include "report/round_plan_text.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/number_format.h"

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

}  // namespace torchscan::report
