// The Slurm part of torchscand's configuration (DaemonConfig.slurm, proto/service.proto): its
// flags, defaults and checks, and where the programs a node runs are. gRPC-free, LibTorch-free.
// Errors are InvalidArgument naming the field ("slurm.partition") and the fix, as config.h's.
#pragma once

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

// --slurm-* values; unset ones leave the file's.
struct SlurmFlags {
  std::optional<std::string> partition;     // --slurm-partition
  std::optional<std::string> account;       // --slurm-account
  std::optional<std::string> time_limit;    // --slurm-time
  std::optional<std::string> constraint;    // --slurm-constraint
  std::optional<std::string> gres;          // --slurm-gres
  std::optional<std::string> node_bin_dir;  // --slurm-bin
};

// The node-side program's file name (daemon/node_job_main.cc).
inline constexpr const char* kNodeJobFileName = "torchscan-node-job";

void ApplySlurmFlags(const SlurmFlags& flags, v1::DaemonConfig* config);

// Whether `config` makes a Slurm front (slurm.partition set).
bool IsSlurmFront(const v1::DaemonConfig& config);

// slurm.time_limit: when empty, limits.job_wall_time_s plus 5 minutes in whole minutes.
// (node_bin_dir is a path on the nodes: left as it is; validation wants it absolute.)
void ApplySlurmDefaults(v1::DaemonConfig* config);

// Checks slurm.* after the defaults: any key set needs partition; partition, account,
// constraint and gres without spaces or commas where Slurm takes one name; time_limit in
// Slurm's forms (minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S); node_bin_dir absolute; a front
// needs sbatch, squeue, scancel and sinfo on PATH (Debian's slurm-client) and the node-side
// program, `node_job_path`, executable here when node_bin_dir is empty (it then runs from the
// same path on the nodes).
absl::Status ValidateSlurmConfig(const v1::DaemonConfig& config, const std::string& node_job_path);

// The programs a node runs for a front: the node-side program, the worker and the RSS child,
// from node_bin_dir when set, else the front's own paths (`own_node_job`: the front's
// torchscan-node-job, beside torchscand).
struct NodePrograms {
  std::string node_job;
  std::string worker;
  std::string rss_child;  // "" when the front has none
};
NodePrograms NodeProgramsOf(const v1::DaemonConfig& config, const std::string& own_node_job);

}  // namespace torchscan::daemon
