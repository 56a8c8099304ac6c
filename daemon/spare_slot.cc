#include "daemon/spare_slot.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "worker/worker_protocol.h"

namespace torchscan::daemon {
namespace {

namespace fs = std::filesystem;

WorkerLaunch SpareLaunch(const JobRunOptions& options, std::string stderr_path) {
  WorkerLaunch launch = WorkerLaunchOf(options, {"--spare"}, std::move(stderr_path));
  launch.wall_time_s = 0;  // a job's limit counts from its handoff (SpareWorker::Run)
  return launch;
}

}  // namespace

SpareSlot::SpareSlot(const JobRunOptions& options, const std::string& off, std::string stderr_path,
                     std::string job_folder)
    : launch_(SpareLaunch(options, std::move(stderr_path))),
      sandbox_(options.sandbox),
      job_folder_(std::move(job_folder)),
      enabled_(off.empty()),
      why_none_(off.empty() ? "the spare worker has not been started yet" : "spare worker off (" + off + ")") {}

SpareSlot::~SpareSlot() { Stop(); }

void SpareSlot::Drop(const std::string& why) {
  spare_.reset();  // kills and reaps what is left of it
  pid_.store(0);
  ready_.store(false);
  why_none_ = why;
}

void SpareSlot::ForgetIfEnded() {
  if (!spare_) return;
  const SpareWorker::State state = spare_->Wait(0);
  if (state == SpareWorker::State::kReady && !ready_.exchange(true))
    spdlog::info("spare worker (pid {}) ready", spare_->pid());
  if (state != SpareWorker::State::kEnded) return;
  const std::string when = spare_->said_ready() ? "idle" : "loading";
  spdlog::warn("the spare worker (pid {}) ended while {}: {}", spare_->pid(), when, spare_->end_reason());
  failed_loading_ = !spare_->said_ready();
  Drop(absl::StrCat("the spare worker ended while ", when, ": ", spare_->end_reason()));
}

std::string SpareSlot::Unavailable() {
  ForgetIfEnded();
  return spare_ ? "" : why_none_;
}

absl::Status SpareSlot::PrepareSandbox(WorkerLaunch* launch) const {
  if (!sandbox_) return absl::OkStatus();
  std::error_code error;
  fs::remove_all(job_folder_, error);  // the last spare's, left by a job that never came
  if (::mkdir(job_folder_.c_str(), 0700) != 0 ||
      (launch->uid >= 0 && ::chown(job_folder_.c_str(), launch->uid, launch->gid) != 0))
    return absl::InternalError(absl::StrCat("cannot make its job folder ", job_folder_, ": ", std::strerror(errno)));
  absl::StatusOr<std::shared_ptr<const process::SandboxPlan>> plan = sandbox_->PlanFor(job_folder_);
  if (!plan.ok()) return plan.status();
  launch->sandbox = *std::move(plan);
  launch->sandbox_folder = job_folder_;
  return absl::OkStatus();
}

void SpareSlot::Refill(bool after_job, int early_children) {
  if (!enabled_) return;
  ForgetIfEnded();
  if (spare_) return;
  if (failed_loading_ && !after_job) return;  // a launch that fails is retried once per job
  std::string reason;
  WorkerLaunch launch = launch_;
  for (std::string& arg : worker::SpareArgs(early_children)) launch.args.push_back(std::move(arg));
  if (absl::Status s = PrepareSandbox(&launch); !s.ok()) {
    spdlog::warn("the spare worker could not start: {}", std::string(s.message()));
    why_none_ = absl::StrCat("the spare worker could not start: ", s.message());
    failed_loading_ = true;
    return;
  }
  spare_ = SpareWorker::Start(launch, &reason);
  if (!spare_) {
    spdlog::warn("the spare worker could not start: {}", reason);
    why_none_ = "the spare worker could not start: " + reason;
    failed_loading_ = true;
    return;
  }
  failed_loading_ = false;
  pid_.store(spare_->pid());
  spdlog::info("spare worker started (pid {})", spare_->pid());
}

std::unique_ptr<SpareWorker> SpareSlot::Take(const WorkerControl* control, double wait_limit_s, std::string* why_not) {
  if (!spare_) {
    *why_not = why_none_;
    return nullptr;
  }
  // Waits in slices, so that a killed control is seen within one.
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    const SpareWorker::State state = spare_->Wait(50, control);
    if (state == SpareWorker::State::kReady) break;
    if (state == SpareWorker::State::kEnded) {
      ForgetIfEnded();
      *why_not = why_none_;
      return nullptr;
    }
    if (control != nullptr && control->killed()) {
      *why_not = control->reason();
      Drop("the spare worker was killed with the job waiting for it");
      return nullptr;
    }
    const double waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (wait_limit_s > 0 && waited_s >= wait_limit_s) {
      *why_not = absl::StrCat("the spare worker was not ready within job_wall_time_s ", wait_limit_s, " (killed)");
      failed_loading_ = true;
      Drop(*why_not);
      return nullptr;
    }
  }
  pid_.store(0);
  ready_.store(false);
  why_none_ = "the spare worker was taken by the previous job and not replaced yet";
  return std::move(spare_);
}

void SpareSlot::Stop() {
  if (spare_) Drop("the spare worker was stopped");
}

int64_t SpareSlot::rss_bytes() const {
  const int pid = pid_.load();
  if (pid <= 0) return 0;
  std::ifstream statm(absl::StrCat("/proc/", pid, "/statm"));
  int64_t size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;  // gone meanwhile
  return resident_pages * static_cast<int64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace torchscan::daemon
