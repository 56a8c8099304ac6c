// How the runs of a measurement or a comparison are timed (part of //experiment:experiment,
// used by experiment.cc only): each run's session (warm-up and block sizing once), its rounds
// in the planned order (core/round_plan.h), and, for a comparison that decides
// (ExperimentOptions.decide), more build pairs until the paired evidence over them decides
// (core/sequential_decision.h) or the time is up. Also Phase, the one place phases begin.
#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "core/phase_timeline.h"
#include "experiment/experiment.h"
#include "proto/report.pb.h"
#include "workloads/workload.h"

namespace torchscan::experiment {

// One phase from construction to destruction: its span in the timeline, and on_phase as it
// begins. The only place phases begin.
class Phase {
 public:
  Phase(const ExperimentOptions& o, PhaseTimeline& timeline, const std::string& phase) : timeline_(timeline) {
    timeline_.Begin(phase);
    if (o.on_phase) o.on_phase(phase);
  }
  ~Phase() { timeline_.End(); }
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  PhaseTimeline& timeline_;
};

// Rounds each extra build pair times: two ABBA pairs, so that each pair's ratio rests on more
// than one block of each run while building stays the larger cost (a 13 MB TorchScript file
// loads and warms up in about 0.1 s here).
// Why build pairs, and not only more rounds of one build pair: the unit the sequence counts
// must be independent of the others, and what is fixed for a build (where its weights and
// code landed) would otherwise be measured again and again, with growing certainty. Measured
// on the 2-core development VM, idle (benchmarks/layout_variance_benchmark.py, 8 processes x 6 build
// pairs x 16 ABBA rounds of 2 calls, the 50-layer chain): a round's ratio varied by 8.7 %
// (SD), a build pair's median by 0.92 %, which its own rounds' sampling (0.98 %) explains:
// no build effect within 0.5 %, and process means varied by 0.43 % (a process effect of 0.2 %).
// Here building again costs time rather than buys accuracy; it is kept because a build effect
// was seen in the same-file validity runs (two builds 2-4 % apart for a whole job), and it
// makes the evidence hold wherever layout matters. A process effect this small needs no
// second worker. (RoundsPerBuildPair, the rounds of each later build pair, is in
// core/round_plan.h, where the calibration's forecast reads it too.)

// A single pass of `w` (a phase "timing <name>"): warm-up, block sizing and blocks.
absl::StatusOr<v1::BenchmarkReport> Time(const workloads::Workload& w, const std::string& name,
                                         const ExperimentOptions& o, PhaseTimeline& timeline);

// Both runs' timing reports, the plan that ordered them and why timing stopped.
struct TimedPair {
  v1::BenchmarkReport before, after;
  v1::RoundPlan round_plan;  // the planned rounds (extra build pairs: TimingSettings.build_pairs)
  std::string stop_reason;   // "" for the planned rounds alone
};

// Builds one side again (candidate or baseline) for a new build pair, without phases.
using Rebuild = std::function<absl::StatusOr<workloads::Workload>(bool candidate)>;

// The timing of both runs, in the planned order (core/round_plan.h): start both sessions, size
// their blocks (rounds > 1), time every round of the plan; then, with o.decide, build pairs
// (a phase "timing build pairs") until the evidence decides, the next pair would end the job
// past o.max_time_s (the job's time on `timeline`, the next pair at the last pair's cost, and
// the work after timing kept in reserve: core/round_plan.h AfterTimingReserveS), or kMaxBuildPairs;
// then finish both reports. `baseline` and `candidate` are the first build pair; `rebuild`
// makes each later one (only called with o.decide).
absl::StatusOr<TimedPair> TimeBoth(const workloads::Workload& baseline, const workloads::Workload& candidate,
                                   const Rebuild& rebuild, const ExperimentOptions& o, PhaseTimeline& timeline);

// Both runs' reports without timing (settings, environment, inputs; an empty timing, a
// report::kNotTimedWarning saying "<why>, so this run was not timed"), for a comparison that
// ends before timing (`why`: "the output check failed before timing").
absl::StatusOr<TimedPair> NotTimed(const workloads::Workload& baseline, const workloads::Workload& candidate,
                                   const ExperimentOptions& o, const std::string& why);

}  // namespace torchscan::experiment
