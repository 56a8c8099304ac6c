// Live progress of a job while the client waits: on a terminal one line redrawn in place
// (state, queue position, phase, blocks, elapsed time; in a timing phase a bar with the
// share of the job's timing done and an estimate of the timing time left); otherwise one
// plain line per change of state or phase, so logs stay readable. Writes to stderr-like
// streams only.
//
// Timing progress is read from the job record alone (its spec and the daemon's timeline,
// proto Job.timeline), so it needs no clock here: the seconds spent in "timing ..." phases
// (every alternating round, each pair of a calibration) of the seconds the job times in all,
// min_run_time_s for each run timed. A timing phase can take longer than its share (the
// blocks a run needs at least, a block longer than the share), so the share is clamped to
// 100 %; the estimate scales the wall time since timing began (warm-ups and block sizing
// included) by what is left.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "core/clock.h"
#include "proto/service.pb.h"

namespace torchscan {

struct TimingProgress {
  double timed_s = 0;  // in "timing ..." spans so far, the open one up to the record's time
  double total_s = 0;  // to be timed in all: min_run_time_s per run (2 a comparison, 2 a pair)
  double stage_s = 0;  // wall time from the first "warm-up ..." or "timing ..." span to the record's time
  // timed_s / total_s within [0, 1].
  double Fraction() const;
};

// The job's timing progress when it is running in a "warm-up ..." or "timing ..." phase and
// its record has a timeline; nullopt otherwise (queued, building, diagnostics, finished).
std::optional<TimingProgress> TimingProgressOf(const v1::Job& job);

// "[#####-----]  50%": `width` cells (at least 1), filled in proportion; the fraction is
// clamped to [0, 1] (NaN counts as 0).
std::string ProgressBar(double fraction, int width);

// Seconds of timing left, stage_s * (1 - f) / f with f = Fraction(); nullopt while f < 2 %
// (too early to tell).
std::optional<double> TimingSecondsLeft(const TimingProgress& progress);

class ProgressPrinter {
 public:
  // `terminal`: redraw in place (use isatty on `out`). `clock` measures the elapsed time
  // shown on the live line; it must outlive the printer.
  ProgressPrinter(std::FILE* out, bool terminal, Clock* clock = SteadyClock());
  void OnEvent(const v1::JobEvent& event);
  // Ends the live line, if any.
  void Finish();

  // "queued #2", "running: timing baseline, 120 blocks", "succeeded" ...: the plain line.
  static std::string Describe(const v1::Job& job);
  // Describe, with the timing bar, percentage and estimate in timing phases:
  // "running: timing baseline [####------]  40%, 120 blocks, ~1.5 s of timing left".
  static std::string DescribeLive(const v1::Job& job);

 private:
  std::FILE* out_;
  bool terminal_;
  Clock* clock_;
  std::string last_line_;
  double started_ = 0;
  int spin_ = 0;
};

}  // namespace torchscan
