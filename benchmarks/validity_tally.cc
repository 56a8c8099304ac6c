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
    case PairKind::kAaCopies: return "A/A copies";
    case PairKind::kSlowdownFiles: return "+1 layer files";
    case PairKind::kSmallAaCopies: return "small A/A copies";
    case PairKind::kSmallSlowdown: return "small +5 %";
  }
  return "?";
}

std::vector<PairKind> InterleavedSchedule(int pairs, int sequential, int file_pairs, int small_pairs) {
  pairs = std::max(pairs, 0);
  sequential = std::max(sequential, 0);
  file_pairs = std::max(file_pairs, 0);
  small_pairs = std::max(small_pairs, 0);
  std::vector<PairKind> order;
  // Pair `pair` (1-based) of A/A and `slowdown`, the A/A first in odd pairs.
  const auto add_pair = [&order](int pair, PairKind aa, PairKind slowdown) {
    const bool aa_first = pair % 2 == 1;
    order.push_back(aa_first ? aa : slowdown);
    order.push_back(aa_first ? slowdown : aa);
  };
  int placed = 0;
  for (int pair = 1; pair <= pairs; ++pair) {
    add_pair(pair, PairKind::kAa, PairKind::kSlowdown);
    // The k-th sequential job follows pair ceil(k * pairs / sequential): k * pairs <= pair * sequential.
    while (placed < sequential && int64_t{placed + 1} * pairs <= int64_t{pair} * sequential) {
      order.push_back(PairKind::kSequentialAa);
      ++placed;
    }
    if (pair <= file_pairs) add_pair(pair, PairKind::kAaCopies, PairKind::kSlowdownFiles);
    if (pair <= small_pairs) add_pair(pair, PairKind::kSmallAaCopies, PairKind::kSmallSlowdown);
  }
  for (; placed < sequential; ++placed) order.push_back(PairKind::kSequentialAa);
  for (int pair = pairs + 1; pair <= std::max(file_pairs, small_pairs); ++pair) {
    if (pair <= file_pairs) add_pair(pair, PairKind::kAaCopies, PairKind::kSlowdownFiles);
    if (pair <= small_pairs) add_pair(pair, PairKind::kSmallAaCopies, PairKind::kSmallSlowdown);
  }
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
    t.call_s.push_back(o.call_s);
    t.discarded_build_pairs += o.discarded_build_pairs;
    t.withheld += o.withheld;
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
