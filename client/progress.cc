#include "client/progress.h"

#include <chrono>

#include "absl/strings/str_format.h"

namespace torchscan {
namespace {

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

ProgressPrinter::ProgressPrinter(std::FILE* out, bool terminal) : out_(out), terminal_(terminal), started_(Now()) {}

std::string ProgressPrinter::Describe(const v1::Job& job) {
  const std::string state = v1::Job::State_Name(job.state());
  if (job.state() == v1::Job::queued) return absl::StrFormat("queued #%d", job.queue_position());
  if (job.state() != v1::Job::running) return job.error().empty() ? state : state + ": " + job.error();
  std::string line = "running";
  if (!job.phase().empty()) line += ": " + job.phase();
  if (job.blocks_done() > 0) line += absl::StrFormat(", %d blocks", job.blocks_done());
  return line;
}

void ProgressPrinter::OnEvent(const v1::JobEvent& event) {
  const std::string line = Describe(event.job());
  if (terminal_) {
    static const char kSpinner[] = "|/-\\";
    std::fprintf(out_, "\r\033[K[%s] %c %s  %.1f s", event.job().id().c_str(), kSpinner[spin_++ % 4], line.c_str(),
                 Now() - started_);
    std::fflush(out_);
    last_line_ = line;
    return;
  }
  // Plain output: only changes of state or phase, not every block.
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
