// CompareBenchmarks over build pairs (TimingRound.unit >= 2): the decision of
// core/build_pair_decision.h from saved reports, with each round's load.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/compare.h"

namespace torchscan {
namespace {

// Both runs of one job: `pairs` build pairs of 2 rounds, the candidate's rounds `ratio` x the
// baseline's, each round timed while others used `share(pair)` of 2 CPUs ("0-1").
struct Runs {
  v1::BenchmarkReport before, after;
};
template <typename Share>
Runs Timed(int pairs, double ratio, Share share) {
  Runs runs;
  for (v1::BenchmarkReport* r : {&runs.before, &runs.after}) {
    const bool after = r == &runs.after;
    r->set_schema_version(kSchemaVersion);
    r->mutable_settings()->set_device("cpu");
    r->mutable_environment()->set_cpu_model("Test CPU");
    r->mutable_environment()->set_device_name("Test CPU");
    v1::TimingSettings* t = r->mutable_settings()->mutable_timing();
    t->set_interleave_id("job-1");
    t->set_smallest_change(0.01);
    t->set_build_pairs(pairs);
    for (int i = 0; i < 2 * pairs; ++i) {
      v1::TimingBlock* b = r->mutable_timing()->add_blocks();
      b->set_calls(1);
      b->set_duration_s((after ? ratio : 1.0) * (1 + 0.001 * (i % 5)));
      v1::TimingRound* round = r->mutable_timing()->add_rounds();
      round->set_round(i + 1);
      round->set_first_block(i);
      round->set_block_count(1);
      round->set_median_s(b->duration_s());
      round->set_unit(i / 2 + 1);
      round->mutable_load()->set_interval_s(0.5);
      round->mutable_load()->set_cpu_count(2);
      round->mutable_load()->set_cpus("0-1");
      round->mutable_load()->set_other_cpu_s(share(i / 2) * 0.5 * 2);
    }
  }
  return runs;
}

v1::PairedEvidence Paired(const Runs& runs) {
  return CompareBenchmarks(runs.before, runs.after, [] { return true; }).evidence().paired();
}

TEST(CompareBuildPairs, QuietPairsClaim) {
  const v1::PairedEvidence p = Paired(Timed(12, 0.9, [](int) { return 0.1; }));
  EXPECT_EQ(p.unit_ratios_size(), 12);
  EXPECT_EQ(p.discarded_build_pairs(), 0);
  EXPECT_EQ(p.claim(), v1::PairedEvidence::faster) << p.note();
  EXPECT_EQ(p.note(), "");
  EXPECT_NE(p.method().find("max_other_cpu_share"), std::string::npos);
}

TEST(CompareBuildPairs, TimingMostlyUnderLoadIsNoClaimWithTheReason) {
  const v1::PairedEvidence p = Paired(Timed(12, 0.9, [](int pair) { return pair < 8 ? 0.8 : 0.1; }));
  EXPECT_EQ(p.unit_ratios_size(), 12);
  EXPECT_EQ(p.discarded_build_pairs(), 8);
  EXPECT_EQ(p.claim(), v1::PairedEvidence::no_claim);
  EXPECT_EQ(p.note(),
            "no claim: others used 57 % of CPUs 0-1 while it timed, above the 50 % limit in 8 of 12 build pairs "
            "(max_other_cpu_share 0.5): rerun on a quieter machine");
}

TEST(CompareBuildPairs, TheRecordedLimitApplies) {
  Runs runs = Timed(12, 0.9, [](int pair) { return pair < 8 ? 0.8 : 0.1; });
  runs.before.mutable_settings()->mutable_timing()->set_max_other_cpu_share(1);  // never discard
  const v1::PairedEvidence p = Paired(runs);
  EXPECT_EQ(p.discarded_build_pairs(), 0);
  EXPECT_EQ(p.claim(), v1::PairedEvidence::faster) << p.note();
}

TEST(CompareBuildPairs, ReportsWithoutRoundLoadsDecideAsBefore) {
  Runs runs = Timed(12, 1.1, [](int) { return 0.9; });
  for (v1::BenchmarkReport* r : {&runs.before, &runs.after})
    for (v1::TimingRound& round : *r->mutable_timing()->mutable_rounds()) round.clear_load();
  const v1::PairedEvidence p = Paired(runs);
  EXPECT_EQ(p.discarded_build_pairs(), 0);
  EXPECT_EQ(p.claim(), v1::PairedEvidence::slower) << p.note();
}

}  // namespace
}  // namespace torchscan
