// The guide's benchmark_comparison experiment over two WorkloadSpecs (baseline, candidate),
// in the order that keeps timing clean:
//   0. with rss, as soon as the options are valid: one fresh RSS child per run, all started
//      at once (experiment/concurrent_rss.h), running beside step 1
//   1. thread counts applied, then both workloads built (seed, eval, inference mode); then
//      the output check of step 4 once ("check (before timing)"): a failed check ends the
//      comparison here, in seconds, with both runs untimed (a "not_timed" warning each) and the
//      same check message; then every RSS child has exited ("wait for rss") before the first
//      timed block
//   2. timing of both: in alternating rounds (default), or one pass each (rounds 1: baseline
//      first, or candidate first with `reverse`); nothing else runs beside it
//   3. diagnostic passes per run: operator profile + FLOPs, tensor memory; the RSS figures
//      of step 0 join the run's totals after them; with instructions, the instruction
//      counts of every run at once (experiment/instruction_pass.h), last
//   4. the output check again, outside timing: AssertClose(baseline(), candidate()), or the
//      TorchScript check module called with (baseline(), candidate()); with
//      skip_check none (not_provided)
//   5. compare_benchmarks (core/compare.h)
// Also a single measurement (steps 0-3 for one spec). Used by the example program and by
// workers. LibTorch stays in the .cc.
//
// Every phase is recorded where it begins, with its end, in a PhaseTimeline
// (core/phase_timeline.h) that the result carries: a measurement's report.timeline, a
// comparison's timeline (its runs carry none). Failed calls return no timeline.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/latency_runner.h"
#include "core/phase_timeline.h"
#include "experiment/torch_check.h"
#include "passes/peak_rss.h"
#include "proto/report.pb.h"
#include "proto/spec_limits.h"
#include "proto/workload.pb.h"

namespace torchscan::experiment {

// Defaults are proto/spec_limits.h's, as for a job whose options are all zero.
struct ExperimentOptions {
  // Timing settings (min_run_time_s default kDefaultMinRunTimeS ...). work_units and
  // work_unit are taken from the built workload.
  LatencyOptions timing;
  // Applied before construction; 0 keeps LibTorch's default.
  int intra_op_threads = kDefaultIntraOpThreads;
  int inter_op_threads = kDefaultInterOpThreads;
  bool reverse = false;  // comparisons: time the candidate first
  // Comparisons: timing rounds, 1..kMaxRounds (core/round_plan.h). N > 1 alternates the
  // order: baseline, candidate, candidate, baseline ... (reversed with `reverse`), each round
  // timing timing.min_run_time_s / N of each run after one warm-up and one block sizing per
  // run; blocks are pooled per run and each round's median is kept (Timing.rounds). The
  // comparison records the plan (round_plan) and both runs share an interleave_id.
  int rounds = kDefaultRounds;
  // Comparisons with rounds > 1: after the planned rounds, more build pairs (both workloads
  // built again and warmed up, then RoundsPerBuildPair rounds) until the paired evidence over
  // build pairs decides (core/sequential_decision.h) at `smallest_change`, or one more would
  // end the job (on `timeline`: from the job's start in the worker) past max_time_s
  // (experiment/timed_runs.h). Off: the planned rounds only (a calibration's
  // pairs, and callers that want a fixed length).
  bool decide = false;
  double smallest_change = kDefaultSmallestChange;
  double max_time_s = kDefaultCompareMaxTimeS;
  // Build pairs timed while other processes used more than this share of the job's CPUs are
  // discarded from the decision; mostly so: no claim (core/build_pair_decision.h).
  double max_other_cpu_share = kDefaultMaxOtherCpuShare;
  int profile_calls = kDefaultProfileCalls;  // calls observed by the operator profile
  bool skip_diagnostics = false;             // no operator profile or tensor-memory pass (RSS still runs with rss)
  bool rss = false;                          // run a fresh RSS child per workload (all at once, before timing)
  std::string rss_child_path;                // //passes:torchscan_rss_child; required with rss
  // RSS children a warm spare worker started before this job (passes/peak_rss.h
  // RssTrial::LaunchWaiting): with rss they take the job's trials first (moved out of the
  // vector; any left over are killed); nullptr: none. Must outlive the run.
  std::vector<passes::RssTrial>* waiting_rss = nullptr;
  // Count instructions per call under valgrind's callgrind (experiment/instruction_pass.h),
  // in the same child binary as RSS (rss_child_path, required), with instruction_calls calls
  // per counted loop and the run's thread counts.
  bool instructions = false;
  int instruction_calls = kDefaultInstructionCalls;
  int rss_calls = kRssChildCalls;            // completed calls inside the RSS child
  double rss_timeout_s = kRssChildTimeoutS;  // the child is killed past this
  // The declarative check: rtol and atol are required unless skip_check or check_module
  // (TorchScan chooses no tolerance); finite outputs required by default.
  CloseOptions check;
  bool skip_check = false;  // comparisons: no output check; recorded as not_provided
  // Comparisons: a TorchScript check module (experiment/script_check.h) instead of `check`, when
  // its source is set. Loaded before any timing, so a bad module fails the job early.
  v1::TorchScriptSpec check_module;
  // Called as each phase begins ("rss baseline", "build baseline", "wait for rss", "timing
  // baseline", "profile candidate", "memory candidate", "check" ...), right after its span
  // opens in `timeline`, always on the calling thread ("rss ..." spans are concurrent: they
  // begin before the builds and end, unannounced, when their child exits).
  std::function<void(const std::string& phase)> on_phase;
  // Where the phases are recorded; its time 0 is the timeline's. nullptr (default): a
  // timeline of the call's own, starting when it is called. Must outlive the call.
  PhaseTimeline* timeline = nullptr;
  // Called after each timed block with the blocks done in the current timing phase.
  std::function<void(int64_t blocks_done)> on_block;
};

// One workload: build, time, diagnostics. The report's name is `name`.
absl::StatusOr<v1::BenchmarkReport> RunMeasurement(const v1::WorkloadSpec& spec, const std::string& name,
                                                   const ExperimentOptions& options);

// Baseline versus candidate as above. Errors (InvalidArgument naming "baseline." or
// "candidate." fields, ResourceExhausted...) come from option validation and workload
// building; a failed output check is not an error (it is recorded in the comparison); an
// exception other than an assertion failure while checking becomes an error status.
absl::StatusOr<v1::Comparison> RunComparison(const v1::WorkloadSpec& baseline, const v1::WorkloadSpec& candidate,
                                             const ExperimentOptions& options);

}  // namespace torchscan::experiment
