#include "benchmarks/validity_tally.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace torchscan::benchmarks {

const char* PairKindName(PairKind kind) {
  switch (kind) {
    case PairKind::kAa: return "A/A";
    case PairKind::kSlowdown: return "+5 %";
    case PairKind::kSequentialAa: return "A/A sequential";
  }
  return "?";
}

std::vector<PairKind> InterleavedSchedule(int pairs, int sequential) {
  pairs = std::max(pairs, 0);
  sequential = std::max(sequential, 0);
  std::vector<PairKind> order;
  int placed = 0;
  for (int pair = 1; pair <= pairs; ++pair) {
    const bool aa_first = pair % 2 == 1;  // pair 1 is the first (even index 0)
    order.push_back(aa_first ? PairKind::kAa : PairKind::kSlowdown);
    order.push_back(aa_first ? PairKind::kSlowdown : PairKind::kAa);
    // The k-th sequential job follows pair ceil(k * pairs / sequential): k * pairs <= pair * sequential.
    while (placed < sequential && int64_t{placed + 1} * pairs <= int64_t{pair} * sequential) {
      order.push_back(PairKind::kSequentialAa);
      ++placed;
    }
  }
  for (; placed < sequential; ++placed) order.push_back(PairKind::kSequentialAa);
  return order;
}

KindTally Tally(const std::vector<CompareOutcome>& outcomes, PairKind kind) {
  KindTally t;
  for (const CompareOutcome& o : outcomes) {
    if (o.kind != kind) continue;
    ++t.jobs;
    if (!o.error.empty()) {
      ++t.failed;
      continue;
    }
    switch (o.label) {
      case v1::Comparison::faster: ++t.label_faster; break;
      case v1::Comparison::slower: ++t.label_slower; break;
      case v1::Comparison::within_variability: ++t.label_within; break;
      default: ++t.label_unavailable; break;
    }
    switch (o.claim) {
      case v1::PairedEvidence::faster: ++t.claim_faster; break;
      case v1::PairedEvidence::slower: ++t.claim_slower; break;
      default: ++t.claim_none; break;
    }
    t.wall_s.push_back(o.wall_s);
    if (o.relative_change) t.relative_change.push_back(*o.relative_change);
    t.rounds.insert(o.rounds);
    t.other_cpu_share.push_back(o.other_cpu_share);
    t.busy_machine += o.busy_machine;
  }
  return t;
}

std::string Rate(int count, int of) {
  char text[64];
  if (of == 0) std::snprintf(text, sizeof text, "%d / 0 (n/a)", count);
  else std::snprintf(text, sizeof text, "%d / %d (%.1f %%)", count, of, 100.0 * count / of);
  return text;
}

}  // namespace torchscan::benchmarks
