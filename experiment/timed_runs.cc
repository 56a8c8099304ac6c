#include "experiment/timed_runs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/build_pair_decision.h"
#include "core/cpu_load.h"
#include "core/proc_load.h"
#include "core/round_plan.h"
#include "core/sequential_decision.h"
#include "core/spread_cause.h"
#include "core/statistics.h"
#include "core/timing_rounds.h"
#include "experiment/torch_measure.h"
#include "proto/spec_limits.h"
#include "report/validate.h"
#include "workloads/torch_status.h"

namespace torchscan::experiment {
namespace {

using workloads::Workload;

absl::Status Prefixed(const std::string& prefix, const absl::Status& s) {
  return absl::Status(s.code(), prefix + std::string(s.message()));
}

// One run's timing, in one round or several: its session (warm-up and block size once), the
// block range of each round, and the load seen around its rounds.
struct TimedRun {
  std::string name;  // "baseline", "candidate", or a measurement's name
  std::unique_ptr<TorchTimingSession> session;
  // The build the session calls: the first one, then each build pair's (shared with the
  // session's call, so that a rebuilt workload is timed by the same session and blocks).
  std::shared_ptr<const Workload*> current;
  struct Round {
    int index;
    std::string position;
    int64_t first_block, block_count;
    int unit;                            // build pair
    double median_s;                     // per-call median of its blocks (as TimingRound records it)
    std::optional<v1::TimingLoad> load;  // while it was timed; absent when /proc was unreadable
  };
  std::vector<Round> rounds;
  v1::TimingLoad load;  // interval_s 0 while nothing was sampled
};

absl::StatusOr<TimedRun> StartRun(const Workload& w, const std::string& name, const ExperimentOptions& o) {
  TorchLatencyOptions t;
  t.timing = o.timing;
  t.timing.work_units = w.work_units;
  t.timing.work_unit = w.work_unit;
  t.device = w.device->text();
  t.name = name;
  t.input_metadata = w.input_metadata;
  t.workload = w.description;
  if (o.on_block) t.on_block = [&o](const v1::TimingBlock&, int64_t blocks_done) { o.on_block(blocks_done); };
  TimedRun run;
  run.name = name;
  run.current = std::make_shared<const Workload*>(&w);
  absl::StatusOr<std::unique_ptr<TorchTimingSession>> session =
      TorchTimingSession::Start([current = run.current] { (*current)->call(); }, t);
  if (!session.ok()) return session.status();
  run.session = *std::move(session);
  return run;
}

// Warm-up and block sizing of `run` (a phase "warm-up <name>"), before its first round.
// Returns the sized block's seconds.
absl::StatusOr<double> PrepareRun(const ExperimentOptions& o, PhaseTimeline& timeline, TimedRun& run) {
  const Phase phase(o, timeline, "warm-up " + run.name);
  double block_s = 0;
  const absl::Status ran = workloads::RunTorch("warm-up " + run.name, [&] { block_s = run.session->Prepare(); });
  if (!ran.ok()) return ran;
  return block_s;
}

// One round of `run` with build pair `unit` (a phase "timing <name>" for the planned rounds;
// build pairs' rounds are inside their one phase); a run not yet prepared warms up and sizes
// its block first, inside the phase (a single pass).
absl::Status TimeRound(const RoundPlan& plan, const RoundStep& step, const ExperimentOptions& o,
                       PhaseTimeline& timeline, TimedRun& run, int unit = 1) {
  std::optional<Phase> phase;
  if (unit == 1) phase.emplace(o, timeline, "timing " + run.name);
  // The load is sampled just outside the timed calls (warm-up and block sizing included): an
  // unreadable /proc leaves Timing.load absent rather than failing the job.
  const absl::StatusOr<CpuLoadSample> load_start = ReadCpuLoad();
  std::pair<int64_t, int64_t> blocks;
  const absl::Status ran = workloads::RunTorch("timing " + run.name, [&] {
    blocks = run.session->TimeRound(RoundTarget(plan, step.round, run.session->timed_s()), plan.round_min_blocks,
                                    plan.round_max_run_time_s);
  });
  if (!ran.ok()) return ran;
  std::optional<v1::TimingLoad> round_load;
  if (load_start.ok()) {
    const absl::StatusOr<CpuLoadSample> load_end = ReadCpuLoad();
    const absl::StatusOr<v1::TimingLoad> load = load_end.ok() ? LoadOnThisProcessCpus(*load_start, *load_end)
                                                              : absl::StatusOr<v1::TimingLoad>(load_end.status());
    if (load.ok()) {
      PoolTimingLoad(*load, &run.load);
      round_load = *load;
    }
  }
  run.rounds.push_back({step.round, step.leads ? "first" : "second", blocks.first, blocks.second, unit,
                        RoundMedian(run.session->blocks(), blocks.first, blocks.second), std::move(round_load)});
  return absl::OkStatus();
}

// The run's report: every block, the load of all its rounds, and (rounds > 1) each round.
v1::BenchmarkReport FinishRun(const RoundPlan& plan, const TimedRun& run) {
  v1::BenchmarkReport report = run.session->Finish();
  if (run.load.interval_s() > 0) *report.mutable_timing()->mutable_load() = run.load;
  if (plan.rounds > 1)
    for (const TimedRun::Round& r : run.rounds) {
      AddTimingRound(r.index, r.position, r.first_block, r.block_count, r.unit, report.mutable_timing());
      if (r.load) *report.mutable_timing()->mutable_rounds()->rbegin()->mutable_load() = *r.load;
    }
  SetHighIqrWarning(report.timing(), report.mutable_warnings());  // its cause, now that load and rounds are known
  return report;
}

// A random id shared by the two runs of one comparison (TimingSettings.interleave_id).
std::string NewInterleaveId() {
  std::random_device random;
  return absl::StrFormat("%08x%08x", random(), random());
}
// With rounds, both runs warm up and size their blocks first (the first round's leader last, so
// that it continues from its own calls as every later leader does), so that the plan knows how
// long a block is; unless the block is fixed, both then time the same calls per block
// (core/round_plan.h EqualCalls). Returns the longer block's seconds at those calls (0 with one
// round).
absl::StatusOr<double> SizeBlocks(const ExperimentOptions& o, PhaseTimeline& timeline, TimedRun& baseline_run,
                                  TimedRun& candidate_run) {
  if (o.rounds <= 1) return 0.0;
  double block_s[2] = {0, 0};  // baseline, candidate
  for (TimedRun* run :
       o.reverse ? std::vector{&baseline_run, &candidate_run} : std::vector{&candidate_run, &baseline_run}) {
    absl::StatusOr<double> sized = PrepareRun(o, timeline, *run);
    if (!sized.ok()) return sized.status();
    block_s[run == &candidate_run] = *sized;
  }
  if (o.timing.fixed_calls_per_block != 0) return std::max(block_s[0], block_s[1]);
  const int64_t sized_calls[2] = {baseline_run.session->calls_per_block(), candidate_run.session->calls_per_block()};
  const int64_t calls = EqualCalls(sized_calls[0], sized_calls[1]);
  double longest_block_s = 0;
  for (int side : {0, 1}) {
    (side ? candidate_run : baseline_run).session->SetCallsPerBlock(calls);
    if (sized_calls[side] > 0) longest_block_s = std::max(longest_block_s, block_s[side] * calls / sized_calls[side]);
  }
  return longest_block_s;
}

// The order both runs were timed in and their rounds, in each report's settings.
void RecordOrder(const RoundPlan& plan, const ExperimentOptions& o, v1::BenchmarkReport* before,
                 v1::BenchmarkReport* after) {
  const std::string order = plan.rounds > 1 ? "alternating rounds: " + RoundOrder(plan)
                            : o.reverse     ? "candidate_first"
                                            : "baseline_first";
  const std::string interleave_id = plan.rounds > 1 ? NewInterleaveId() : "";
  for (v1::BenchmarkReport* r : {before, after}) {
    r->mutable_settings()->set_order(order);
    v1::TimingSettings* t = r->mutable_settings()->mutable_timing();
    t->set_rounds(plan.rounds);
    if (plan.rounds > 1) {
      t->set_round_min_run_time_s(plan.round_min_run_time_s);
      t->set_interleave_id(interleave_id);
    }
  }
}

// The decision over the build pairs so far (core/build_pair_decision.h): each round's candidate /
// baseline per-call median and both runs' load while it was timed (kept as each round was timed,
// not computed again at every look), pooled per pair.
PairDecision Decide(const TimedRun& baseline, const TimedRun& candidate, const ExperimentOptions& o) {
  std::vector<int> units;
  std::vector<double> ratios;
  std::vector<v1::TimingLoad> loads;
  for (size_t i = 0; i < baseline.rounds.size() && i < candidate.rounds.size(); ++i) {
    const TimedRun::Round &b = baseline.rounds[i], &c = candidate.rounds[i];
    units.push_back(b.unit);
    ratios.push_back(b.median_s > 0 ? c.median_s / b.median_s : std::nan(""));
    loads.push_back(RoundLoad(b.load ? &*b.load : nullptr, c.load ? &*c.load : nullptr));
  }
  return DecideOverBuildPairs(BuildPairsOf(units, ratios, loads), o.smallest_change, o.max_other_cpu_share);
}

// Warm-up of a rebuilt workload, untimed: one block's calls, and at least 3 (TorchScript's
// profiling executor optimizes a method on its second call).
absl::Status WarmUpBuild(const Workload& w, const TimedRun& run) {
  const int64_t calls = std::max<int64_t>(3, run.session->calls_per_block());
  return workloads::RunTorch("warm-up " + run.name, [&] {
    for (int64_t i = 0; i < calls; ++i) w.call();
  });
}

// A run's per-call time so far: the median of its rounds' medians (0 before any round).
double PerCallS(const TimedRun& run) {
  std::vector<double> medians;
  for (const TimedRun::Round& r : run.rounds) medians.push_back(r.median_s);
  return Quantile(std::move(medians), 0.5).value_or(0);
}

// After the planned rounds (build pair 1): more build pairs, each both workloads built again,
// warmed up and timed for RoundsPerBuildPair rounds (core/round_plan.h, from the first builds
// and the planned rounds, fixed for the comparison), until the evidence over build pairs
// decides, the next pair would end the job past o.max_time_s (the job's time so far on
// `timeline`, plus the next pair at the last one's cost, plus the work after timing:
// core/round_plan.h AfterTimingReserveS) or kMaxBuildPairs. The first extra pair is costed
// by core/round_plan.h BuildPairEstimateS from the first builds (the timeline's "build"
// phases) and the planned timing since `timing_began`. Returns why it stopped.
absl::StatusOr<std::string> TimeBuildPairs(const Rebuild& rebuild, const ExperimentOptions& o, PhaseTimeline& timeline,
                                           std::chrono::steady_clock::time_point timing_began, RoundPlan& plan,
                                           TimedRun& baseline, TimedRun& candidate, int* build_pairs) {
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  // A timing phase (its rebuilds and warm-ups are a small part): summaries that add up time by
  // kind of phase count it as timing.
  const Phase phase(o, timeline, "timing build pairs");
  std::unique_ptr<Workload> built[2];  // the pair being timed (the first pair is the caller's)
  double builds_s = 0;
  const v1::Timeline so_far = timeline.Snapshot();
  for (const v1::PhaseSpan& span : so_far.spans())
    if (span.phase().rfind("build ", 0) == 0) builds_s += span.end_s() - span.start_s();
  const double planned_timing_s = seconds_since(timing_began);
  const int rounds_per_pair = RoundsPerBuildPair(builds_s, planned_timing_s / std::max(1, plan.rounds));
  double next_pair_s = BuildPairEstimateS(builds_s, planned_timing_s, plan.rounds, rounds_per_pair);
  std::mt19937 order_rng(std::random_device{}());
  while (true) {
    // A decided look withheld by the load or the robustness checks times on: more pairs may
    // decide again (the sequence holds however often it is looked at), or the cap ends it.
    const PairDecision decision = Decide(baseline, candidate, o);
    if (decision.claim != SequentialOutcome::kUndecided)
      return absl::StrCat("decided (", SequentialOutcomeName(decision.claim), ") after ", *build_pairs,
                          " build pairs, ", absl::StrFormat("%.1f", timeline.Now()), " s into the job");
    const double reserve_s =
        AfterTimingReserveS(PerCallS(baseline), PerCallS(candidate), o.skip_diagnostics ? 0 : o.profile_calls);
    if (timeline.Now() + next_pair_s + reserve_s > o.max_time_s)
      return absl::StrCat("undecided at the time cap: ", *build_pairs, " build pairs, timing ended ",
                          absl::StrFormat("%.1f", timeline.Now()), " s into the job (max_time_s ", o.max_time_s,
                          ", kept ", absl::StrFormat("%.1f", reserve_s), " s for the work after timing)");
    if (*build_pairs >= kMaxBuildPairs)
      return absl::StrCat("undecided after ", kMaxBuildPairs, " build pairs, the most a comparison times");
    const auto pair_began = std::chrono::steady_clock::now();
    ++*build_pairs;
    // Which side is built first is drawn at random for each pair (Fisher's remedy for an order
    // effect that cannot be modelled away): where a build lands depends on what the builds
    // before it left, and that history favoured one side under any fixed order tried. Each
    // side is built again while the other's build of the pair before still lives, and its own
    // old build is freed after its warm-up. Measured (issue 40, byte-identical copies, later
    // pairs' log ratios, 8 jobs each): alternating the order, the pairs one side was built
    // first came out 0.46 % apart, the others 0.01 % (100 layers); freeing both old builds
    // first and alternating, whichever side was built first lost 1 % (50 layers: pairs' spread
    // 1.36 %, unbiased over pairs); at random, -0.04 % over pairs, spread 1.00 %, and +2 %
    // files decided in 10 pairs (13 alternating). The side built last leads the pair's first
    // round, straight after its own warm-up, as every later leader follows its own calls
    // (ABBA), so the report's round order says which side was built last. Measured (issue 39,
    // 50-layer chain, 1-call blocks of 5.7 ms): with the baseline leading every pair whoever
    // was built last, the one timed first after another's warm-up lost a few % in that round,
    // and byte-identical copies came out 0.9 % apart (1 % the other way with --reverse).
    const bool baseline_first = std::bernoulli_distribution(0.5)(order_rng);
    for (TimedRun* run : baseline_first ? std::vector{&baseline, &candidate} : std::vector{&candidate, &baseline}) {
      const bool is_candidate = run == &candidate;
      absl::StatusOr<Workload> w = rebuild(is_candidate);
      if (!w.ok()) return Prefixed(absl::StrCat(run->name, " (build pair ", *build_pairs, "): "), w.status());
      auto fresh = std::make_unique<Workload>(*std::move(w));
      if (absl::Status s = WarmUpBuild(*fresh, *run); !s.ok()) return s;
      *run->current = fresh.get();
      built[is_candidate] = std::move(fresh);  // the pair before is timed no more: freed
    }
    const size_t first_new = plan.steps.size();
    ExtendRounds(rounds_per_pair, /*candidate_leads_first=*/baseline_first, &plan);
    for (size_t i = first_new; i < plan.steps.size(); ++i) {
      const RoundStep& step = plan.steps[i];
      if (absl::Status s = TimeRound(plan, step, o, timeline, step.candidate ? candidate : baseline, *build_pairs);
          !s.ok())
        return s;
    }
    next_pair_s = seconds_since(pair_began);
  }
}

}  // namespace

absl::StatusOr<v1::BenchmarkReport> Time(const Workload& w, const std::string& name, const ExperimentOptions& o,
                                         PhaseTimeline& timeline) {
  absl::StatusOr<TimedRun> run = StartRun(w, name, o);
  if (!run.ok()) return run.status();
  const RoundPlan plan = PlanRounds(1, false, o.timing);
  if (absl::Status s = TimeRound(plan, plan.steps[0], o, timeline, *run); !s.ok()) return s;
  return FinishRun(plan, *run);
}

absl::StatusOr<TimedPair> TimeBoth(const Workload& baseline, const Workload& candidate, const Rebuild& rebuild,
                                   const ExperimentOptions& o, PhaseTimeline& timeline) {
  const auto began = std::chrono::steady_clock::now();
  absl::StatusOr<TimedRun> baseline_run = StartRun(baseline, "baseline", o);
  if (!baseline_run.ok()) return baseline_run.status();
  absl::StatusOr<TimedRun> candidate_run = StartRun(candidate, "candidate", o);
  if (!candidate_run.ok()) return candidate_run.status();
  const absl::StatusOr<double> longest_block_s = SizeBlocks(o, timeline, *baseline_run, *candidate_run);
  if (!longest_block_s.ok()) return longest_block_s.status();
  const RoundPlan plan = PlanRounds(o.rounds, o.reverse, o.timing, *longest_block_s);
  for (const RoundStep& step : plan.steps)
    if (absl::Status s = TimeRound(plan, step, o, timeline, step.candidate ? *candidate_run : *baseline_run); !s.ok())
      return s;
  TimedPair timed;
  RoundPlan timed_plan = plan;  // the planned rounds, and the build pairs' after them
  int build_pairs = 1;
  if (o.decide && plan.rounds > 1) {
    absl::StatusOr<std::string> stopped =
        TimeBuildPairs(rebuild, o, timeline, began, timed_plan, *baseline_run, *candidate_run, &build_pairs);
    if (!stopped.ok()) return stopped.status();
    timed.stop_reason = *std::move(stopped);
  }
  timed.before = FinishRun(timed_plan, *baseline_run);
  timed.after = FinishRun(timed_plan, *candidate_run);
  RecordOrder(plan, o, &timed.before, &timed.after);
  for (v1::BenchmarkReport* r : {&timed.before, &timed.after}) {
    v1::TimingSettings* t = r->mutable_settings()->mutable_timing();
    t->set_build_pairs(build_pairs);
    if (o.decide && plan.rounds > 1) {
      t->set_smallest_change(o.smallest_change);
      t->set_max_other_cpu_share(o.max_other_cpu_share);
    }
  }
  timed.round_plan = RoundPlanRecord(plan, o.timing, baseline_run->session->calls_per_block(),
                                     candidate_run->session->calls_per_block());
  return timed;
}

absl::StatusOr<TimedPair> NotTimed(const Workload& baseline, const Workload& candidate, const ExperimentOptions& o,
                                   const std::string& why) {
  TimedPair untimed;
  for (const auto& [w, name, report] :
       {std::tuple(&baseline, "baseline", &untimed.before), std::tuple(&candidate, "candidate", &untimed.after)}) {
    absl::StatusOr<TimedRun> run = StartRun(*w, name, o);
    if (!run.ok()) return run.status();
    *report = run->session->Finish();
    report->mutable_timing()->Clear();  // present and empty: report/validate.h
    report->clear_warnings();
    v1::Warning* warning = report->add_warnings();
    warning->set_code(report::kNotTimedWarning);
    warning->set_message(why + ", so this run was not timed");
  }
  return untimed;
}

}  // namespace torchscan::experiment
