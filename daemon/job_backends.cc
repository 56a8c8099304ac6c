// The registry of backends (job_backend.h): the first whose configuration matches serves.
#include <functional>
#include <memory>
#include <vector>

#include "daemon/config.h"
#include "daemon/executor.h"
#include "daemon/job_backend.h"
#include "daemon/job_runner.h"
#include "daemon/slurm_config.h"
#include "daemon/slurm_front.h"

namespace torchscan::daemon {
namespace {

struct BackendType {
  const char* name;
  std::function<bool(const v1::DaemonConfig&)> serves;
  std::function<absl::StatusOr<std::unique_ptr<JobBackend>>(const v1::DaemonConfig&, JobRecords*)> open;
};

// A Slurm front's jobs run sandboxed on their nodes (torchscan-node-job), not here.
absl::StatusOr<std::unique_ptr<JobBackend>> OpenSlurm(const v1::DaemonConfig& config, JobRecords* records) {
  return std::make_unique<SlurmFront>(config, records, CurrentMachine().executable_dir + "/" + kNodeJobFileName);
}

absl::StatusOr<std::unique_ptr<JobBackend>> OpenLocal(const v1::DaemonConfig& config, JobRecords* records) {
  absl::StatusOr<JobIsolation> isolation = OpenJobIsolation(config);
  if (!isolation.ok()) return isolation.status();
  return std::make_unique<Executor>(config, records, *isolation);
}

const std::vector<BackendType>& Registry() {
  static const auto* const registry = new std::vector<BackendType>{
      {"slurm", IsSlurmFront, OpenSlurm},
      {"local", [](const v1::DaemonConfig&) { return true; }, OpenLocal},
  };
  return *registry;
}

}  // namespace

absl::StatusOr<std::unique_ptr<JobBackend>> OpenJobBackend(const v1::DaemonConfig& config, JobRecords* records) {
  for (const BackendType& type : Registry())
    if (type.serves(config)) return type.open(config, records);
  return absl::InternalError("no job backend serves this configuration");
}

}  // namespace torchscan::daemon
