#include "worker/fresh_comparison.h"

#include <filesystem>
#include <optional>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "io/proto_json.h"
#include "process/run.h"
#include "worker/job_spec_file.h"
#include "worker/state_folder.h"
#include "worker/worker_outcome.h"
#include "worker/worker_protocol.h"

namespace torchscan::worker {
namespace {

namespace fs = std::filesystem;

// Removes the child's folder when the call ends, however it ends.
class FolderRemover {
 public:
  explicit FolderRemover(std::string dir) : dir_(std::move(dir)) {}
  ~FolderRemover() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

 private:
  std::string dir_;
};

absl::Status WriteChildJob(const v1::JobSpec& spec, const std::string& dir) {
  std::error_code error;
  fs::remove_all(dir, error);
  if (!error) fs::create_directories(dir, error);
  if (error) return absl::InternalError(absl::StrCat("cannot create the folder ", dir, ": ", error.message()));
  if (absl::Status s = SaveJobSpec(spec, dir); !s.ok())
    return absl::InternalError(absl::StrCat("cannot write ", dir, "/", kJobSpecFile, ": ", s.message()));
  return absl::OkStatus();
}

absl::Status FailureOf(const WorkerOutcome& outcome) {
  if (outcome.kind == WorkerOutcome::Kind::kExited && outcome.exit_code == kWorkerOutOfMemory)
    return absl::ResourceExhaustedError(outcome.reason);
  return absl::AbortedError(outcome.reason);
}

}  // namespace

absl::StatusOr<v1::Comparison> RunComparisonInFreshWorker(const v1::JobSpec& spec, const FreshWorkerRun& run) {
  if (!spec.has_compare()) return absl::InvalidArgumentError("a fresh worker's comparison needs a compare job spec");
  if (run.worker_path.empty() || run.dir.empty())
    return absl::InvalidArgumentError("a fresh worker needs the worker's path and a folder for its job");
  FolderRemover remover(run.dir);
  if (absl::Status s = WriteChildJob(spec, run.dir); !s.ok()) return s;

  process::RunOptions options = WorkerRunOptions(run.worker_path, {"--job", run.dir});
  options.stderr_path = run.dir + "/stderr.txt";
  options.spawn.setup.own_process_group = false;
  auto on_line = [&](const std::string& text) {
    const std::optional<WorkerLine> line = ParseWorkerLine(text);
    if (!line) return;
    if (line->kind == WorkerLine::Kind::kPhase && run.on_phase) run.on_phase(line->phase);
    if (line->kind == WorkerLine::Kind::kBlocks && run.on_blocks) run.on_blocks(line->blocks);
  };
  const WorkerOutcome outcome = WorkerOutcomeOf(process::Run(options, on_line,
                                                             [&](const process::Spawned& spawned) {
                                                               if (run.on_start) run.on_start(spawned.pid);
                                                             }),
                                                options);
  if (!outcome.ok()) return FailureOf(outcome);

  v1::JobResult result;
  if (absl::Status s = LoadJsonStrict(run.dir + "/" + kJobResultFile, &result); !s.ok())
    return absl::InternalError(absl::StrCat("the worker exited 0 but its result is unusable: ", s.message()));
  if (!result.has_comparison()) return absl::InternalError("the worker exited 0 but its result holds no comparison");
  return std::move(*result.mutable_comparison());
}

}  // namespace torchscan::worker
