#include "benchmarks/validity_tally.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace torchscan::benchmarks {
namespace {

using K = PairKind;

TEST(InterleavedSchedule, AlternatesWhichKindLeadsEachPair) {
  EXPECT_EQ(InterleavedSchedule(3, 0),
            (std::vector<K>{K::kAa, K::kSlowdown, K::kSlowdown, K::kAa, K::kAa, K::kSlowdown}));
}

TEST(InterleavedSchedule, SpreadsSequentialJobsEvenlyAmongPairs) {
  // pairs 4, sequential 2: after pairs ceil(4/2) = 2 and ceil(8/2) = 4.
  EXPECT_EQ(InterleavedSchedule(4, 2), (std::vector<K>{K::kAa, K::kSlowdown, K::kSlowdown, K::kAa, K::kSequentialAa,
                                                       K::kAa, K::kSlowdown, K::kSlowdown, K::kAa, K::kSequentialAa}));
  // pairs 2, sequential 3: after pairs ceil(2/3) = 1, ceil(4/3) = 2, ceil(6/3) = 2.
  EXPECT_EQ(InterleavedSchedule(2, 3), (std::vector<K>{K::kAa, K::kSlowdown, K::kSequentialAa, K::kSlowdown, K::kAa,
                                                       K::kSequentialAa, K::kSequentialAa}));
}

TEST(InterleavedSchedule, PutsAFilePairAfterEachSameFilePair) {
  EXPECT_EQ(InterleavedSchedule(2, 1, 3),
            (std::vector<K>{K::kAa, K::kSlowdown, K::kAaCopies, K::kSlowdownFiles, K::kSlowdown, K::kAa,
                            K::kSequentialAa, K::kSlowdownFiles, K::kAaCopies, K::kAaCopies, K::kSlowdownFiles}));
  EXPECT_EQ(InterleavedSchedule(0, 0, 1), (std::vector<K>{K::kAaCopies, K::kSlowdownFiles}));
  EXPECT_EQ(InterleavedSchedule(1, 0, -2), (std::vector<K>{K::kAa, K::kSlowdown}));
}

TEST(InterleavedSchedule, PutsASmallPairAfterEachFilePair) {
  EXPECT_EQ(InterleavedSchedule(1, 0, 1, 2),
            (std::vector<K>{K::kAa, K::kSlowdown, K::kAaCopies, K::kSlowdownFiles, K::kSmallAaCopies, K::kSmallSlowdown,
                            K::kSmallSlowdown, K::kSmallAaCopies}));
  EXPECT_EQ(InterleavedSchedule(0, 0, 0, 1), (std::vector<K>{K::kSmallAaCopies, K::kSmallSlowdown}));
}

TEST(InterleavedSchedule, CountsEveryJobOnce) {
  const std::vector<K> order = InterleavedSchedule(40, 10);
  EXPECT_EQ(std::count(order.begin(), order.end(), K::kAa), 40);
  EXPECT_EQ(std::count(order.begin(), order.end(), K::kSlowdown), 40);
  EXPECT_EQ(std::count(order.begin(), order.end(), K::kSequentialAa), 10);
  EXPECT_EQ(InterleavedSchedule(0, 2), (std::vector<K>{K::kSequentialAa, K::kSequentialAa}));
  EXPECT_TRUE(InterleavedSchedule(-1, -1).empty());
}

CompareOutcome Outcome(K kind, v1::Comparison::LatencyChange label, v1::PairedEvidence::Claim claim, double wall) {
  CompareOutcome o;
  o.kind = kind;
  o.label = label;
  o.claim = claim;
  o.wall_s = wall;
  o.rounds = 10;
  o.relative_change = 0.05;
  return o;
}

TEST(Tally, CountsOneKindsLabelsClaimsAndFailures) {
  CompareOutcome failed;
  failed.kind = K::kSlowdown;
  failed.error = "failed: worker crashed";
  failed.withheld = true;  // a failed job counts for nothing but the failure
  std::vector<CompareOutcome> outcomes = {
      Outcome(K::kSlowdown, v1::Comparison::slower, v1::PairedEvidence::slower, 2.0),
      Outcome(K::kAa, v1::Comparison::faster, v1::PairedEvidence::no_claim, 9.0),
      Outcome(K::kSlowdown, v1::Comparison::faster, v1::PairedEvidence::no_claim, 3.0),
      failed,
      Outcome(K::kSlowdown, v1::Comparison::unavailable, v1::PairedEvidence::faster, 4.0),
  };
  outcomes[2].withheld = true;
  outcomes[2].discarded_build_pairs = 3;
  outcomes[4].call_s = 0.0003;
  const KindTally t = Tally(outcomes, K::kSlowdown);
  EXPECT_EQ(t.jobs, 4);
  EXPECT_EQ(t.failed, 1);
  EXPECT_EQ(t.succeeded(), 3);
  EXPECT_EQ(t.label_slower, 1);
  EXPECT_EQ(t.label_faster, 1);
  EXPECT_EQ(t.label_within, 0);
  EXPECT_EQ(t.label_unavailable, 1);
  EXPECT_EQ(t.claim_slower, 1);
  EXPECT_EQ(t.claim_faster, 1);
  EXPECT_EQ(t.claim_none, 1);
  EXPECT_EQ(t.wall_s, (std::vector<double>{2.0, 3.0, 4.0}));
  EXPECT_EQ(t.rounds, (std::set<int>{10}));
  EXPECT_EQ(t.withheld, 1);
  EXPECT_EQ(t.discarded_build_pairs, 3);
  EXPECT_EQ(t.call_s, (std::vector<double>{0, 0, 0.0003}));
  EXPECT_EQ(Tally(outcomes, K::kSequentialAa).jobs, 0);
}

TEST(Rate, ShowsCountShareAndNoShareOfNothing) {
  EXPECT_EQ(Rate(3, 40), "3 / 40 (7.5 %)");
  EXPECT_EQ(Rate(0, 0), "0 / 0 (n/a)");
}

}  // namespace
}  // namespace torchscan::benchmarks
