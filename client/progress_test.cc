#include "client/progress.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/fake_clock.h"

namespace torchscan {
namespace {

void AddSpan(v1::Job* job, const std::string& phase, double start_s, double end_s) {
  v1::PhaseSpan* s = job->mutable_timeline()->add_spans();
  s->set_phase(phase);
  s->set_start_s(start_s);
  s->set_end_s(end_s);
}

// A comparison timing 1 s per run (2 s in all), halfway: the baseline's 0.5 s round is done
// and the candidate's is 0.5 s in, 1.5 s after the first warm-up began.
v1::Job HalfwayComparison() {
  v1::Job job;
  job.set_id("job-7");
  job.set_state(v1::Job::running);
  job.mutable_spec()->mutable_compare();
  job.mutable_spec()->mutable_options()->set_min_run_time_s(1);
  job.set_phase("timing candidate");
  job.set_blocks_done(42);
  AddSpan(&job, "queue wait", 0, 0.25);
  AddSpan(&job, "build baseline", 0.25, 1);
  AddSpan(&job, "warm-up baseline", 1, 1.25);
  AddSpan(&job, "timing baseline", 1.25, 1.75);
  AddSpan(&job, "warm-up candidate", 1.75, 2);
  AddSpan(&job, "timing candidate", 2, 2.5);  // open: ends at the record's time
  return job;
}

TEST(ProgressBar, FillsInProportionAndClamps) {
  EXPECT_EQ(ProgressBar(0, 10), "[----------]   0%");
  EXPECT_EQ(ProgressBar(0.45, 10), "[####------]  45%");
  EXPECT_EQ(ProgressBar(1, 4), "[####] 100%");
  EXPECT_EQ(ProgressBar(1.7, 4), "[####] 100%");
  EXPECT_EQ(ProgressBar(-1, 4), "[----]   0%");
  EXPECT_EQ(ProgressBar(NAN, 4), "[----]   0%");
  EXPECT_EQ(ProgressBar(0.5, 0), "[-]  50%");
}

TEST(TimingProgress, SecondsTimedOfTheJobsTotalAndTheStageSoFar) {
  const std::optional<TimingProgress> p = TimingProgressOf(HalfwayComparison());
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->timed_s, 1.0);
  EXPECT_DOUBLE_EQ(p->total_s, 2.0);
  EXPECT_DOUBLE_EQ(p->stage_s, 1.5);
  EXPECT_DOUBLE_EQ(p->Fraction(), 0.5);
  EXPECT_DOUBLE_EQ(*TimingSecondsLeft(*p), 1.5);
}

TEST(TimingProgress, RepeatedRoundsAndCalibrationPairsAddUp) {
  v1::Job job;
  job.set_state(v1::Job::running);
  job.mutable_spec()->mutable_calibrate()->set_pairs(2);  // 2 pairs x 2 runs x 0.2 s (the default)
  AddSpan(&job, "pair 1/2: warm-up baseline", 0, 0.1);
  AddSpan(&job, "pair 1/2: timing baseline", 0.1, 0.3);
  AddSpan(&job, "pair 1/2: timing candidate", 0.3, 0.5);
  AddSpan(&job, "pair 2/2: timing baseline", 0.5, 0.6);
  const std::optional<TimingProgress> p = TimingProgressOf(job);
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->total_s, 0.8);
  EXPECT_NEAR(p->timed_s, 0.5, 1e-12);
  EXPECT_NEAR(p->Fraction(), 0.625, 1e-12);
}

TEST(TimingProgress, OnlyWhileTimingAndNoEstimateTooEarly) {
  v1::Job job = HalfwayComparison();
  AddSpan(&job, "profile baseline", 2.5, 2.6);
  EXPECT_FALSE(TimingProgressOf(job).has_value());  // diagnostics: no bar
  job = HalfwayComparison();
  job.set_state(v1::Job::succeeded);
  EXPECT_FALSE(TimingProgressOf(job).has_value());
  EXPECT_FALSE(TimingProgressOf(v1::Job()).has_value());
  TimingProgress early;
  early.timed_s = 0.01;
  early.total_s = 1;
  early.stage_s = 0.5;
  EXPECT_FALSE(TimingSecondsLeft(early).has_value());
  TimingProgress over;  // a phase longer than its share: 100 %, nothing left
  over.timed_s = 3;
  over.total_s = 2;
  over.stage_s = 4;
  EXPECT_DOUBLE_EQ(over.Fraction(), 1.0);
  EXPECT_DOUBLE_EQ(*TimingSecondsLeft(over), 0.0);
}

TEST(ProgressPrinter, LiveLineShowsTheBarPercentageAndTimeLeft) {
  EXPECT_EQ(ProgressPrinter::DescribeLive(HalfwayComparison()),
            "running: timing candidate [##########----------]  50%, 42 blocks, ~1.5 s of timing left");
  v1::Job building = HalfwayComparison();
  building.clear_timeline();
  building.set_phase("build baseline");
  building.set_blocks_done(0);
  EXPECT_EQ(ProgressPrinter::DescribeLive(building), "running: build baseline");
}

std::string Printed(bool terminal, const std::vector<v1::Job>& jobs, FakeClock* clock) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  {
    ProgressPrinter printer(out, terminal, clock);
    for (const v1::Job& job : jobs) {
      clock->Advance(1.25);
      v1::JobEvent event;
      *event.mutable_job() = job;
      printer.OnEvent(event);
    }
    printer.Finish();
  }
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

TEST(ProgressPrinter, ATerminalGetsOneRedrawnLineWithTheElapsedTime) {
  FakeClock clock;
  v1::Job later = HalfwayComparison();
  later.set_blocks_done(43);
  EXPECT_EQ(Printed(true, {HalfwayComparison(), later}, &clock),
            "\r\033[K[job-7] | running: timing candidate [##########----------]  50%, 42 blocks, ~1.5 s of timing "
            "left  1.2 s"
            "\r\033[K[job-7] / running: timing candidate [##########----------]  50%, 43 blocks, ~1.5 s of timing "
            "left  2.5 s\n");
}

TEST(ProgressPrinter, PipesGetOnePlainLinePerPhaseWithoutTheBar) {
  FakeClock clock;
  v1::Job later = HalfwayComparison();
  later.set_blocks_done(43);
  v1::Job done;
  done.set_id("job-7");
  done.set_state(v1::Job::succeeded);
  EXPECT_EQ(Printed(false, {HalfwayComparison(), later, done}, &clock),
            "[job-7] running: timing candidate, 42 blocks\n[job-7] succeeded\n");
}

// A failed job's error is the command's to print (once), not the progress line's as well.
TEST(ProgressPrinter, AnEndedJobShowsItsStateAlone) {
  v1::Job failed;
  failed.set_id("job-7");
  failed.set_state(v1::Job::failed);
  failed.set_error("the worker exited with code 3: candidate: index out of range in self");
  EXPECT_EQ(ProgressPrinter::Describe(failed), "failed");
}

TEST(ProgressPrinter, OneBlockIsOneBlock) {
  v1::Job one = HalfwayComparison();
  one.set_blocks_done(1);
  one.clear_spec();  // no timing plan: the plain line
  EXPECT_EQ(ProgressPrinter::Describe(one), "running: timing candidate, 1 block");
}

}  // namespace
}  // namespace torchscan
