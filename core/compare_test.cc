#include "core/compare.h"

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "core/latency_runner.h"

namespace torchscan {
namespace {

// A report whose blocks have one call each with the given durations.
v1::BenchmarkReport Report(const std::vector<double>& per_call) {
  v1::BenchmarkReport r;
  r.set_schema_version(kSchemaVersion);
  r.set_work_units(32);
  r.set_work_unit("samples");
  r.mutable_settings()->set_device("cpu");
  r.mutable_settings()->mutable_threads()->set_intra_op(1);
  r.mutable_settings()->mutable_timing()->set_min_run_time_s(0.2);
  v1::Environment* e = r.mutable_environment();
  e->set_cpu_model("Test CPU");
  e->set_device_name("Test CPU");
  e->set_logical_cores(2);
  e->set_libtorch_version("1.13.0");
  e->set_compiler("gcc 12.2.0");
  e->set_torchscan_version("0.1.0");
  e->set_cuda_runtime("none");
  e->set_blas_library("/usr/lib/libblas.so.3");
  e->set_load_average_1m(0.5);
  r.mutable_input_metadata()->mutable_fields()->insert({"seed", "0"});
  v1::TensorInfo* t = r.mutable_input_metadata()->add_tensors();
  t->set_name("inputs");
  t->add_shape(32);
  t->add_shape(128);
  t->set_dtype("float32");
  for (double d : per_call) {
    v1::TimingBlock* b = r.mutable_timing()->add_blocks();
    b->set_calls(1);
    b->set_duration_s(d);
  }
  *r.mutable_timing()->mutable_summary() = SummarizeBlocks(r.timing().blocks());
  r.mutable_timing()->set_throughput(32 / r.timing().summary().median_s());
  return r;
}

const std::vector<double> kSlow = {10, 11, 12, 13, 14, 10, 11, 12, 13, 14};  // median 12, IQR 2
const std::vector<double> kFast = {5, 6, 7, 8, 9, 5, 6, 7, 8, 9};            // median 7, IQR 2
const std::vector<double> kNear = {11, 12, 13, 14, 15, 11, 12, 13, 14, 15};  // median 13

const v1::MetricDelta& DeltaNamed(const v1::Comparison& c, const std::string& name) {
  for (const v1::MetricDelta& d : c.deltas())
    if (d.name() == name) return d;
  throw std::runtime_error("no delta " + name);
}

TEST(CompareBenchmarks, PassingCheckAndClearGainIsFaster) {
  const v1::Comparison c = CompareBenchmarks(Report(kSlow), Report(kFast), [] { return std::optional<bool>(); });
  EXPECT_EQ(c.output_check().status(), v1::OutputCheck::passed);
  EXPECT_TRUE(c.compatibility().compatible());
  EXPECT_EQ(c.latency_change(), v1::Comparison::faster);
  const v1::MetricDelta& median = DeltaNamed(c, "latency_median");
  EXPECT_TRUE(median.known());
  EXPECT_DOUBLE_EQ(median.delta(), -5);
  EXPECT_DOUBLE_EQ(median.ratio(), 7.0 / 12.0);
  EXPECT_DOUBLE_EQ(c.evidence().relative_change(), -5.0 / 12.0);
  EXPECT_TRUE(c.evidence().has_mann_whitney_p());
  EXPECT_LT(c.evidence().mann_whitney_p(), 0.01);
  EXPECT_EQ(c.schema_version(), kSchemaVersion);
}

TEST(CompareBenchmarks, SlowerWhenAfterIsClearlySlower) {
  const v1::Comparison c = CompareBenchmarks(Report(kFast), Report(kSlow), [] { return true; });
  EXPECT_EQ(c.latency_change(), v1::Comparison::slower);
}

TEST(CompareBenchmarks, ChangeNoLargerThanLargerIqrIsWithinVariability) {
  // |13 - 12| = 1 <= max(IQR 2, IQR 2)
  const v1::Comparison c = CompareBenchmarks(Report(kSlow), Report(kNear), [] { return true; });
  EXPECT_EQ(c.latency_change(), v1::Comparison::within_variability);
  // Exactly equal to the IQR still counts as within variability: 12 -> 10 with IQR 2.
  std::vector<double> shifted;
  for (double d : kSlow) shifted.push_back(d - 2);
  EXPECT_EQ(CompareBenchmarks(Report(kSlow), Report(shifted)).latency_change(), v1::Comparison::within_variability);
}

std::vector<double> Microseconds(const std::vector<double>& values) {
  std::vector<double> scaled;
  for (double v : values) scaled.push_back(v * 1e-6);
  return scaled;
}

TEST(CompareBenchmarks, ReasonStatesTheRuleInHumanUnits) {
  EXPECT_EQ(CompareBenchmarks(Report(Microseconds(kSlow)), Report(Microseconds(kFast))).latency_change_reason(),
            "median change -5.000 µs vs larger IQR 2.000 µs: larger than the spread");
  EXPECT_EQ(CompareBenchmarks(Report(Microseconds(kSlow)), Report(Microseconds(kNear))).latency_change_reason(),
            "median change +1.000 µs vs larger IQR 2.000 µs: no larger than the spread");
  EXPECT_EQ(CompareBenchmarks(Report(kFast), Report(kSlow)).latency_change_reason(),
            "median change +5.000 s vs larger IQR 2.000 s: larger than the spread");
}

TEST(CompareBenchmarks, CheckReturningTrueOrNothingPasses) {
  EXPECT_EQ(CompareBenchmarks(Report(kSlow), Report(kFast), [] { return true; }).output_check().status(),
            v1::OutputCheck::passed);
  EXPECT_EQ(CompareBenchmarks(Report(kSlow), Report(kFast), [] { return std::nullopt; }).output_check().status(),
            v1::OutputCheck::passed);
}

TEST(CompareBenchmarks, CheckReturningFalseFailsAndWithholdsEveryNumber) {
  const v1::Comparison c = CompareBenchmarks(Report(kSlow), Report(kFast), [] { return false; });
  EXPECT_EQ(c.output_check().status(), v1::OutputCheck::failed);
  EXPECT_EQ(c.latency_change(), v1::Comparison::unavailable);
  ASSERT_FALSE(c.deltas().empty());
  for (const v1::MetricDelta& d : c.deltas()) {
    EXPECT_FALSE(d.known()) << d.name();
    EXPECT_FALSE(d.has_delta() || d.has_ratio() || d.has_before() || d.has_after()) << d.name();
    EXPECT_NE(d.unknown_reason().find("output check failed"), std::string::npos);
  }
  EXPECT_FALSE(c.evidence().has_relative_change());
  EXPECT_FALSE(c.evidence().has_mann_whitney_p());
  // Both measurements are preserved.
  EXPECT_EQ(c.before().timing().blocks_size(), 10);
  EXPECT_EQ(c.after().timing().blocks_size(), 10);
}

TEST(CompareBenchmarks, AssertionErrorFailsWithItsMessage) {
  const v1::Comparison c = CompareBenchmarks(Report(kSlow), Report(kFast),
                                             []() -> std::optional<bool> { throw AssertionError("max diff 0.5"); });
  EXPECT_EQ(c.output_check().status(), v1::OutputCheck::failed);
  EXPECT_EQ(c.output_check().message(), "max diff 0.5");
  EXPECT_EQ(c.latency_change(), v1::Comparison::unavailable);
}

TEST(CompareBenchmarks, OtherExceptionsPropagate) {
  EXPECT_THROW(CompareBenchmarks(Report(kSlow), Report(kFast),
                                 []() -> std::optional<bool> { throw std::runtime_error("bug in check"); }),
               std::runtime_error);
}

TEST(CompareBenchmarks, NoCheckIsNotProvidedAndSaysSo) {
  const v1::Comparison c = CompareBenchmarks(Report(kSlow), Report(kFast));
  EXPECT_EQ(c.output_check().status(), v1::OutputCheck::not_provided);
  EXPECT_EQ(c.latency_change(), v1::Comparison::faster);
  bool noted = false;
  for (const std::string& n : c.notes()) noted |= n.find("No output check") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(CompareBenchmarks, EachIncompatibilityIsNamedAndWithholdsNumbers) {
  struct Case {
    std::function<void(v1::BenchmarkReport&)> mutate;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](v1::BenchmarkReport& r) { r.mutable_environment()->set_cpu_model("Other CPU"); }, "environment.cpu_model"},
      {[](v1::BenchmarkReport& r) { r.mutable_environment()->set_logical_cores(64); }, "environment.logical_cores"},
      {[](v1::BenchmarkReport& r) { r.mutable_environment()->set_libtorch_version("2.1.0"); },
       "environment.libtorch_version"},
      {[](v1::BenchmarkReport& r) { r.mutable_environment()->set_compiler("clang 14"); }, "environment.compiler"},
      {[](v1::BenchmarkReport& r) { r.mutable_environment()->set_torchscan_version("0.2.0"); },
       "environment.torchscan_version"},
      {[](v1::BenchmarkReport& r) { r.mutable_environment()->set_cuda_runtime("12.1"); }, "environment.cuda_runtime"},
      {[](v1::BenchmarkReport& r) { r.mutable_settings()->set_device("cuda:0"); }, "settings.device"},
      {[](v1::BenchmarkReport& r) { (*r.mutable_input_metadata()->mutable_fields())["seed"] = "1"; },
       "input_metadata.fields.seed"},
      {[](v1::BenchmarkReport& r) { (*r.mutable_input_metadata()->mutable_fields())["dataset_revision"] = "b"; },
       "input_metadata.fields.dataset_revision"},
      {[](v1::BenchmarkReport& r) { r.mutable_input_metadata()->mutable_tensors(0)->set_dtype("float16"); },
       "input_metadata.tensors"},
      {[](v1::BenchmarkReport& r) { r.set_work_units(64); }, "work_units"},
      {[](v1::BenchmarkReport& r) { r.set_work_unit("tokens"); }, "work_unit"},
  };
  for (const Case& k : cases) {
    v1::BenchmarkReport after = Report(kFast);
    k.mutate(after);
    const v1::Comparison c = CompareBenchmarks(Report(kSlow), after, [] { return true; });
    EXPECT_FALSE(c.compatibility().compatible()) << k.field;
    ASSERT_EQ(c.compatibility().mismatches_size(), 1) << k.field;
    EXPECT_EQ(c.compatibility().mismatches(0).field(), k.field);
    EXPECT_EQ(c.latency_change(), v1::Comparison::unavailable) << k.field;
    // The fixture's four timing metrics (latency_median, latency_iqr, latency_mean,
    // throughput) are each listed, and withheld.
    ASSERT_EQ(c.deltas_size(), 4) << k.field;
    for (const v1::MetricDelta& d : c.deltas()) EXPECT_FALSE(d.known()) << k.field << " " << d.name();
  }
}

TEST(CompareBenchmarks, UnknownHardwareOnBothSidesIsNotAMatch) {
  v1::BenchmarkReport before = Report(kSlow), after = Report(kFast);
  for (v1::BenchmarkReport* r : {&before, &after}) {
    r->mutable_environment()->set_cpu_model("unknown");
    r->mutable_environment()->clear_device_name();
  }
  const v1::Comparison c = CompareBenchmarks(before, after, [] { return true; });
  EXPECT_FALSE(c.compatibility().compatible());
  ASSERT_EQ(c.compatibility().mismatches_size(), 2);
  EXPECT_EQ(c.compatibility().mismatches(0).field(), "environment.cpu_model");
  EXPECT_EQ(c.compatibility().mismatches(0).before(), "unknown");
  EXPECT_EQ(c.compatibility().mismatches(1).field(), "environment.device_name");
  EXPECT_EQ(c.latency_change(), v1::Comparison::unavailable);
  bool said = false;
  for (const std::string& n : c.notes())
    said = said || n.find("the same hardware cannot be established") != std::string::npos;
  EXPECT_TRUE(said);
}

// Two model files (or a built-in and a module) are the change under test: listed, never blocking.
TEST(CompareBenchmarks, ModelRevisionAndOtherCandidateChangesAreListedNotBlocking) {
  v1::BenchmarkReport before = Report(kSlow), after = Report(kFast);
  (*before.mutable_workload())["model_revision"] =
      "sha256:0000000000000000000000000000000000000000000000000000000000000001";
  (*after.mutable_workload())["model_revision"] =
      "sha256:0000000000000000000000000000000000000000000000000000000000000002";
  (*before.mutable_workload())["method"] = "forward";
  (*after.mutable_workload())["method"] = "forward_fused";
  (*after.mutable_workload())["optimize_for_inference"] = "true";
  const v1::Comparison c = CompareBenchmarks(before, after, [] { return true; });
  EXPECT_TRUE(c.compatibility().compatible());
  EXPECT_EQ(c.latency_change(), v1::Comparison::faster);
  std::vector<std::string> names;
  for (const v1::SettingChange& s : c.changed_settings()) names.push_back(s.name());
  EXPECT_EQ(names, (std::vector<std::string>{"workload.method", "workload.model_revision",
                                             "workload.optimize_for_inference"}));
}

TEST(CompareBenchmarks, WorkUnitsMismatchReadsAsNumbers) {
  v1::BenchmarkReport after = Report(kFast);
  after.set_work_units(64);
  const v1::Comparison c = CompareBenchmarks(Report(kSlow), after, [] { return true; });
  ASSERT_EQ(c.compatibility().mismatches_size(), 1);
  EXPECT_EQ(c.compatibility().mismatches(0).before(), "32");
  EXPECT_EQ(c.compatibility().mismatches(0).after(), "64");
}

TEST(CompareBenchmarks, ChangedThreadsAndTimingSettingsAreListedNotBlocking) {
  v1::BenchmarkReport after = Report(kFast);
  after.mutable_settings()->mutable_threads()->set_intra_op(2);
  after.mutable_settings()->mutable_timing()->set_min_run_time_s(1);
  after.mutable_environment()->set_blas_library("/usr/lib/openblas/libblas.so.3");
  after.mutable_environment()->set_load_average_1m(1.5);  // volatile: not listed
  (*after.mutable_workload())["execution_mode"] = "batch";
  const v1::Comparison c = CompareBenchmarks(Report(kSlow), after, [] { return true; });
  EXPECT_TRUE(c.compatibility().compatible());
  EXPECT_EQ(c.latency_change(), v1::Comparison::faster);
  std::vector<std::string> names;
  for (const v1::SettingChange& s : c.changed_settings()) names.push_back(s.name());
  EXPECT_EQ(names, (std::vector<std::string>{"settings.threads.intra_op", "settings.timing.min_run_time_s",
                                             "environment.blas_library", "workload.execution_mode"}));
  EXPECT_EQ(c.changed_settings(0).before(), "1");
  EXPECT_EQ(c.changed_settings(0).after(), "2");
  EXPECT_EQ(c.changed_settings(3).before(), "(absent)");
}

v1::MetricResult Metric(const std::string& name, std::optional<double> value, bool complete,
                        const std::string& method = "m", const std::string& scope = "s",
                        const std::string& unit = "bytes") {
  v1::MetricResult m;
  m.set_name(name);
  if (value) m.set_value(*value);
  m.set_complete(complete);
  m.set_method(method);
  m.set_scope(scope);
  m.set_unit(unit);
  return m;
}

TEST(CompareBenchmarks, OnlyCompleteMatchingMetricsGetDeltas) {
  v1::BenchmarkReport before = Report(kSlow), after = Report(kFast);
  *before.add_totals() = Metric("rss", 100, true);
  *after.add_totals() = Metric("rss", 150, true);
  *before.add_totals() = Metric("flops", 10, false);
  *after.add_totals() = Metric("flops", 10, true);
  *before.add_totals() = Metric("tensor_peak", 5, true, "tracker A");
  *after.add_totals() = Metric("tensor_peak", 6, true, "tracker B");
  *before.add_totals() = Metric("scoped", 5, true, "m", "one call");
  *after.add_totals() = Metric("scoped", 6, true, "m", "100 calls");
  *before.add_totals() = Metric("units", 5, true, "m", "s", "bytes");
  *after.add_totals() = Metric("units", 6, true, "m", "s", "KiB");
  *before.add_totals() = Metric("only_before", 1, true);
  *after.add_totals() = Metric("only_after", 1, true);
  *before.add_totals() = Metric("crashed", std::nullopt, false);
  *after.add_totals() = Metric("crashed", 3, true);
  const v1::Comparison c = CompareBenchmarks(before, after, [] { return true; });

  const v1::MetricDelta& rss = DeltaNamed(c, "rss");
  EXPECT_TRUE(rss.known());
  EXPECT_DOUBLE_EQ(rss.delta(), 50);
  EXPECT_DOUBLE_EQ(rss.ratio(), 1.5);
  const std::vector<std::pair<std::string, std::string>> unknown = {{"flops", "incomplete in the before report"},
                                                                    {"tensor_peak", "methods differ"},
                                                                    {"scoped", "scopes differ"},
                                                                    {"units", "units differ"},
                                                                    {"only_before", "missing in the after report"},
                                                                    {"only_after", "missing in the before report"},
                                                                    {"crashed", "unknown in the before report"}};
  for (const auto& [name, reason] : unknown) {
    const v1::MetricDelta& d = DeltaNamed(c, name);
    EXPECT_FALSE(d.known()) << name;
    EXPECT_FALSE(d.has_delta()) << name;
    EXPECT_NE(d.unknown_reason().find(reason), std::string::npos) << name << ": " << d.unknown_reason();
  }
}

TEST(CompareBenchmarks, RunWithoutBlocksIsUnavailable) {
  const v1::Comparison c = CompareBenchmarks(Report(kSlow), Report({}), [] { return true; });
  EXPECT_EQ(c.latency_change(), v1::Comparison::unavailable);
  EXPECT_FALSE(DeltaNamed(c, "latency_median").known());
}

TEST(CompareBenchmarks, TooFewBlocksGiveNoPValueButKeepTheLabel) {
  const v1::Comparison c = CompareBenchmarks(Report({10, 11, 12}), Report({1, 2, 3}), [] { return true; });
  EXPECT_EQ(c.latency_change(), v1::Comparison::faster);
  EXPECT_FALSE(c.evidence().has_mann_whitney_p());
  EXPECT_NE(c.evidence().mann_whitney_note().find("cannot reach"), std::string::npos);
}

// Adds synthetic timing rounds with the given per-round medians (round numbers 1..n), as
// timed in the job whose interleave id is `interleave_id`.
v1::BenchmarkReport WithRounds(v1::BenchmarkReport r, const std::vector<double>& medians,
                               const std::string& interleave_id = "job-1") {
  r.mutable_settings()->mutable_timing()->set_interleave_id(interleave_id);
  for (size_t i = 0; i < medians.size(); ++i) {
    v1::TimingRound* round = r.mutable_timing()->add_rounds();
    round->set_round(static_cast<int>(i) + 1);
    round->set_position(i % 2 == 0 ? "first" : "second");
    round->set_median_s(medians[i]);
  }
  return r;
}

TEST(CompareBenchmarks, PairedClaimSitsBesideTheLabelAndNeverChangesIt) {
  // Identical pooled blocks (within_variability), but every round of the candidate is 10 %
  // slower than its partner: the paired claim says slower, the label stays the guide's.
  const v1::Comparison c =
      CompareBenchmarks(WithRounds(Report(kSlow), {10, 12, 11, 13, 10}),
                        WithRounds(Report(kSlow), {11, 13.2, 12.1, 14.3, 11}), [] { return true; });
  EXPECT_EQ(c.latency_change(), v1::Comparison::within_variability);
  const v1::PairedEvidence& p = c.evidence().paired();
  ASSERT_EQ(p.round_ratios_size(), 5);
  EXPECT_DOUBLE_EQ(p.round_ratios(1), 1.1);
  EXPECT_DOUBLE_EQ(p.median_ratio(), 1.1);
  EXPECT_DOUBLE_EQ(p.ci_low(), 1.1);
  EXPECT_DOUBLE_EQ(p.ci_high(), 1.1);
  EXPECT_DOUBLE_EQ(p.achieved_confidence(), 0.9375);
  EXPECT_DOUBLE_EQ(p.confidence(), 0.9);
  EXPECT_EQ(p.claim(), v1::PairedEvidence::slower);
  EXPECT_NE(p.method().find("Hodges-Lehmann"), std::string::npos);
  EXPECT_EQ(p.note(), "");
}

TEST(CompareBenchmarks, PairedRoundsAreMatchedByRoundNumberNotStorageOrder) {
  v1::BenchmarkReport before = WithRounds(Report(kSlow), {1, 2, 3, 4, 5});
  v1::BenchmarkReport after = WithRounds(Report(kSlow), {0.5, 1, 1.5, 2, 2.5});
  after.mutable_timing()->mutable_rounds()->SwapElements(0, 4);
  const v1::PairedEvidence& p = CompareBenchmarks(before, after, [] { return true; }).evidence().paired();
  for (double ratio : p.round_ratios()) EXPECT_DOUBLE_EQ(ratio, 0.5);
  EXPECT_EQ(p.claim(), v1::PairedEvidence::faster);
}

TEST(CompareBenchmarks, PairedEvidenceWithoutRoundsOrWithTooFewSaysWhy) {
  const v1::Comparison single = CompareBenchmarks(Report(kSlow), Report(kFast), [] { return true; });
  EXPECT_EQ(single.evidence().paired().claim(), v1::PairedEvidence::no_claim);
  EXPECT_EQ(single.evidence().paired().note(), "no timing rounds to pair: the runs were timed in a single pass");
  const v1::Comparison few =
      CompareBenchmarks(WithRounds(Report(kSlow), {2, 2}), WithRounds(Report(kFast), {1, 1}), [] { return true; });
  EXPECT_EQ(few.evidence().paired().round_ratios_size(), 2);
  EXPECT_FALSE(few.evidence().paired().has_ci_low());
  EXPECT_EQ(few.evidence().paired().claim(), v1::PairedEvidence::no_claim);
  EXPECT_EQ(few.evidence().paired().note(), "needs at least 5 rounds at 90% (has 2)");
}

TEST(CompareBenchmarks, RoundsOfRunsNotInterleavedInOneJobAreNeverPaired) {
  // Two saved reports from different jobs each have rounds: pairing round i of one with round
  // i of the other would pair rounds that never ran side by side.
  const std::string expected =
      "the runs' rounds were not interleaved in one job (their interleave_id differs or is missing): rounds cannot be "
      "paired";
  for (const auto& [before_id, after_id] : {std::pair{"job-1", "job-2"}, std::pair{"", ""}, std::pair{"job-1", ""}}) {
    const v1::Comparison c =
        CompareBenchmarks(WithRounds(Report(kSlow), {2, 2, 2, 2, 2}, before_id),
                          WithRounds(Report(kFast), {1, 1, 1, 1, 1}, after_id), [] { return true; });
    const v1::PairedEvidence& p = c.evidence().paired();
    EXPECT_EQ(p.note(), expected) << before_id << " / " << after_id;
    EXPECT_EQ(p.round_ratios_size(), 0);
    EXPECT_EQ(p.claim(), v1::PairedEvidence::no_claim);
    for (const v1::SettingChange& change : c.changed_settings())
      EXPECT_NE(change.name(), "settings.timing.interleave_id") << "the id names a job, not a setting";
  }
}

TEST(CompareBenchmarks, PairedEvidenceIsWithheldLikeThePValue) {
  const v1::BenchmarkReport before = WithRounds(Report(kSlow), {2, 2, 2, 2, 2});
  v1::BenchmarkReport after = WithRounds(Report(kFast), {1, 1, 1, 1, 1});
  const v1::Comparison failed = CompareBenchmarks(before, after, [] { return false; });
  after.mutable_environment()->set_cpu_model("Other CPU");
  const v1::Comparison incompatible = CompareBenchmarks(before, after, [] { return true; });
  for (const v1::Comparison* c : {&failed, &incompatible}) {
    const v1::PairedEvidence& p = c->evidence().paired();
    EXPECT_EQ(p.round_ratios_size(), 0);
    EXPECT_FALSE(p.has_median_ratio() || p.has_ci_low() || p.has_ci_high() || p.has_resolvable_change() ||
                 p.has_achieved_confidence());
    EXPECT_EQ(p.claim(), v1::PairedEvidence::no_claim);
    EXPECT_EQ(p.note(), c->evidence().mann_whitney_note());
    EXPECT_NE(p.note().find("withheld"), std::string::npos);
  }
}

}  // namespace
}  // namespace torchscan
