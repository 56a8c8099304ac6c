#include "client/progress.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "proto/spec_limits.h"

namespace torchscan {
namespace {

constexpr int kBarCells = 20;

// "timing baseline", or a calibration pair's "pair 3/20: timing candidate".
bool IsTiming(const std::string& phase) {
  return absl::StartsWith(phase, "timing ") || absl::StrContains(phase, ": timing ");
}
bool IsTimingStage(const std::string& phase) {
  return IsTiming(phase) || absl::StartsWith(phase, "warm-up ") || absl::StrContains(phase, ": warm-up ");
}

// Seconds the job times in all: min_run_time_s per run timed.
double TotalTimingSeconds(const v1::JobSpec& spec) {
  const double min_run_time_s =
      spec.options().min_run_time_s() > 0 ? spec.options().min_run_time_s() : kDefaultMinRunTimeS;
  if (spec.has_compare()) return 2 * min_run_time_s;
  if (spec.has_calibrate()) {
    const int pairs = spec.calibrate().pairs() > 0 ? spec.calibrate().pairs() : kDefaultCalibrationPairs;
    return 2 * pairs * min_run_time_s;
  }
  return min_run_time_s;
}

// ", 1 block", ", 42 blocks"; "" before the first.
std::string BlocksDone(const v1::Job& job) {
  if (job.blocks_done() <= 0) return "";
  return absl::StrFormat(", %d block%s", job.blocks_done(), job.blocks_done() == 1 ? "" : "s");
}

}  // namespace

double TimingProgress::Fraction() const {
  if (!(total_s > 0) || !(timed_s > 0)) return 0;
  return std::min(timed_s / total_s, 1.0);
}

std::optional<TimingProgress> TimingProgressOf(const v1::Job& job) {
  const v1::Timeline& t = job.timeline();
  if (job.state() != v1::Job::running || t.spans().empty() || !IsTimingStage(t.spans(t.spans_size() - 1).phase()))
    return std::nullopt;
  TimingProgress p;
  p.total_s = TotalTimingSeconds(job.spec());
  double stage_start = NAN;
  for (const v1::PhaseSpan& s : t.spans()) {
    if (IsTimingStage(s.phase()) && std::isnan(stage_start)) stage_start = s.start_s();
    if (IsTiming(s.phase())) p.timed_s += std::max(s.end_s() - s.start_s(), 0.0);
  }
  p.stage_s = std::max(t.spans(t.spans_size() - 1).end_s() - stage_start, 0.0);
  return p;
}

std::string ProgressBar(double fraction, int width) {
  width = std::max(width, 1);
  const double f = std::isnan(fraction) ? 0 : std::clamp(fraction, 0.0, 1.0);
  const int filled = static_cast<int>(std::floor(f * width + 1e-9));
  return absl::StrFormat("[%s%s] %3d%%", std::string(filled, '#'), std::string(width - filled, '-'),
                         static_cast<int>(std::floor(f * 100 + 1e-9)));
}

std::optional<double> TimingSecondsLeft(const TimingProgress& p) {
  const double f = p.Fraction();
  if (f < 0.02) return std::nullopt;
  return p.stage_s * (1 - f) / f;
}

ProgressPrinter::ProgressPrinter(std::FILE* out, bool terminal, Clock* clock)
    : out_(out), terminal_(terminal), clock_(clock), started_(clock->NowSeconds()) {}

std::string ProgressPrinter::Describe(const v1::Job& job) {
  const std::string state = v1::Job::State_Name(job.state());
  if (job.state() == v1::Job::queued) {
    // A Slurm front's job waits in Slurm's queue, which orders it: its phase says why it waits.
    if (job.queue_position() == 0) return job.phase().empty() ? "queued" : "queued: " + job.phase();
    return absl::StrFormat("queued #%d", job.queue_position());
  }
  // A job that ended: its state alone; the command that waited says why it failed, once.
  if (job.state() != v1::Job::running) return state;
  std::string line = "running";
  if (!job.phase().empty()) line += ": " + job.phase();
  line += BlocksDone(job);
  return line;
}

std::string ProgressPrinter::DescribeLive(const v1::Job& job) {
  const std::optional<TimingProgress> timing = TimingProgressOf(job);
  if (!timing) return Describe(job);
  std::string line = "running: " + job.phase() + " " + ProgressBar(timing->Fraction(), kBarCells);
  line += BlocksDone(job);
  if (const std::optional<double> left = TimingSecondsLeft(*timing))
    line += absl::StrFormat(", ~%.1f s of timing left", *left);
  return line;
}

void ProgressPrinter::OnEvent(const v1::JobEvent& event) {
  if (terminal_) {
    static const char kSpinner[] = "|/-\\";
    const std::string line = DescribeLive(event.job());
    std::fprintf(out_, "\r\033[K[%s] %c %s  %.1f s", event.job().id().c_str(), kSpinner[spin_++ % 4], line.c_str(),
                 clock_->NowSeconds() - started_);
    std::fflush(out_);
    last_line_ = line;
    return;
  }
  // Plain output: only changes of state or phase, not every block.
  const std::string line = Describe(event.job());
  const std::string key = event.job().state() == v1::Job::running ? "running: " + event.job().phase() : line;
  if (key == last_line_) return;
  last_line_ = key;
  std::fprintf(out_, "[%s] %s\n", event.job().id().c_str(), line.c_str());
  std::fflush(out_);
}

void ProgressPrinter::Finish() {
  if (terminal_ && !last_line_.empty()) std::fprintf(out_, "\n");
  last_line_.clear();
}

}  // namespace torchscan
