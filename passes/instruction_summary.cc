#include "passes/instruction_summary.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "passes/frame_groups.h"

namespace torchscan::passes {
namespace {

double PerCall(int64_t count, int64_t calls) { return static_cast<double>(count) / static_cast<double>(calls); }

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Sum of several events' totals; -1 when one is missing (no cache simulation).
int64_t SumOf(const CallgrindProfile& p, std::initializer_list<const char*> events) {
  int64_t sum = 0;
  for (const char* e : events) {
    if (p.EventIndex(e) < 0) return -1;
    sum += p.Total(e);
  }
  return sum;
}

void AddCacheFigures(const CountedRepeat& first, int64_t calls, v1::InstructionCounts* counts) {
  if (SumOf(first.calls, {"I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"}) < 0) return;  // no cache simulation
  const auto misses = [&](std::initializer_list<const char*> events) {
    return SumOf(first.calls, events) - std::max<int64_t>(0, SumOf(first.empty, events));
  };
  const int64_t l1 = misses({"I1mr", "D1mr", "D1mw"});
  const int64_t ll = misses({"ILmr", "DLmr", "DLmw"});
  counts->set_l1_misses(std::max(0.0, PerCall(l1, calls)));
  counts->set_ll_misses(std::max(0.0, PerCall(ll, calls)));
  counts->set_estimated_cycles(counts->instructions() + 10 * counts->l1_misses() + 100 * counts->ll_misses());
}

// The functions below the loop: callers above the work have an inclusive count of (nearly)
// the whole loop and say nothing.
void AddTopInclusive(const CallgrindProfile& p, int64_t calls, int rows, v1::InstructionCounts* counts) {
  const int ir = p.EventIndex("Ir");
  const int64_t whole = p.Total("Ir");
  std::map<std::string, std::pair<int64_t, int64_t>> by_name;  // short name -> (self, inclusive)
  for (const CallgrindFunction& f : p.functions) {
    auto& [self, inclusive] = by_name[ShortFunctionName(f.name)];
    self += f.self[ir];
    inclusive = std::max(inclusive, f.inclusive[ir]);  // overloads: the largest, never a sum of nested ones
  }
  std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> rows_sorted(by_name.begin(), by_name.end());
  std::sort(rows_sorted.begin(), rows_sorted.end(),
            [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
  for (const auto& [name, cost] : rows_sorted) {
    if (counts->top_inclusive_size() >= rows) break;
    if (cost.second >= whole * 0.98 || cost.second <= 0) continue;
    v1::FunctionCount* row = counts->add_top_inclusive();
    row->set_name(name);
    row->set_self(PerCall(cost.first, calls));
    row->set_inclusive(PerCall(cost.second, calls));
  }
}

void AddFunctions(const CallgrindProfile& p, int64_t calls, const SummaryOptions& o, v1::InstructionCounts* counts) {
  const int ir = p.EventIndex("Ir");
  std::map<std::string, int64_t> self;
  for (const CallgrindFunction& f : p.functions) {
    const std::string name = ShortFunctionName(f.name);
    const std::string group = FrameGroup(name);
    self[group.empty() ? name : group] += f.self[ir];
  }
  std::vector<std::pair<std::string, int64_t>> rows(self.begin(), self.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  const double threshold = o.function_share * PerCall(p.Total("Ir"), calls);
  counts->set_functions_threshold(threshold);
  double other = 0;
  for (const auto& [name, cost] : rows) {
    const double per_call = PerCall(cost, calls);
    if (per_call <= 0) continue;
    if (per_call < threshold || counts->functions_size() >= o.max_functions) {
      other += per_call;
      continue;
    }
    v1::FunctionCount* row = counts->add_functions();
    row->set_name(name);
    row->set_self(per_call);
  }
  if (other > 0) {
    v1::FunctionCount* row = counts->add_functions();
    row->set_name("[other functions]");
    row->set_self(other);
  }
}

}  // namespace

void SummarizeRepeats(const std::vector<CountedRepeat>& repeats, const SummaryOptions& o,
                      v1::InstructionCounts* counts) {
  counts->set_calls(o.calls);
  counts->set_warmup_calls(o.warmup_calls);
  counts->set_repeats(static_cast<int>(repeats.size()));
  if (repeats.empty() || o.calls <= 0) {
    counts->set_complete(false);
    counts->add_diagnostics("no counted loop: the child dumped no counts");
    return;
  }
  std::vector<double> per_call;
  for (const CountedRepeat& r : repeats) {
    if (r.calls.EventIndex("Ir") < 0 || r.calls.Total("Ir") <= 0) {
      counts->set_complete(false);
      counts->add_diagnostics("a counted loop holds no instructions: callgrind's collection was never switched on");
      return;
    }
    per_call.push_back(PerCall(r.calls.Total("Ir") - r.empty.Total("Ir"), o.calls));
    counts->add_repeat_instructions(per_call.back());
  }
  const double median = Median(per_call);
  const auto [low, high] = std::minmax_element(per_call.begin(), per_call.end());
  counts->set_instructions(median);
  counts->set_spread(median > 0 ? (*high - *low) / median : 0);
  counts->set_empty_call_instructions(PerCall(repeats.front().empty.Total("Ir"), o.calls));
  AddCacheFigures(repeats.front(), o.calls, counts);
  AddTopInclusive(repeats.front().calls, o.calls, o.top_inclusive, counts);
  AddFunctions(repeats.front().calls, o.calls, o, counts);
  counts->set_complete(true);
}

}  // namespace torchscan::passes
