// The Slurm commands a front daemon runs (slurm_front.h), and what their output says: sbatch
// to hand a job over, squeue for where each job is, scancel, sinfo for the partition's
// nodes. The commands find slurm.conf as Slurm's own tools do (SLURM_CONF, else /etc/slurm).
// Parsing is pure and tested on captured output; RunSlurm runs a command under a wall-time
// limit (process/run.h) and never throws. gRPC-free, LibTorch-free.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

// Runs `program` (found on PATH) with `args`: its stdout when it exits 0. Errors name the
// command and carry its stderr: Unavailable when Slurm's controller could not be reached
// (the text then says to start slurmctld and check `scontrol ping`), DeadlineExceeded past
// `timeout_s`, NotFound when the program is not installed, Internal otherwise.
absl::StatusOr<std::string> RunSlurm(const std::string& program, const std::vector<std::string>& args,
                                     double timeout_s = 30);

// One job handed to Slurm: its batch job runs `node_job` (torchscan-node-job) under srun on
// one whole node, in `slurm_dir` (its output, node.log, lands there).
struct SbatchRequest {
  std::string job_id;       // torchscand's job id (the Slurm job's name is "torchscan-<id>")
  std::string slurm_dir;    // <state_dir>/slurm/<id>: working folder and node.log
  std::string node;         // JobSpec.node: --nodelist; "" = any node of the partition
  std::string node_job;     // the node-side program's path on the nodes
  std::string node_config;  // <state_dir>/slurm/node-config.json
  int gpus = 0;             // GPUs the job needs (spec::GpusNeeded): --gres=gpu:<gpus>
};
// sbatch's arguments: --parsable, one exclusive node, one task, --no-requeue (a job Slurm
// ends early is never run again behind the front's back), the configuration's partition,
// account, time limit, constraint and gres, and a wrapped script that runs the node-side
// program with `srun --exclusive` over all the node's CPUs. A GPU job's gres asks for its GPUs
// (gpu:<request.gpus>, in place of any gpu entry of the configuration's gres), so that Slurm
// gives the node's job the GPUs its cuda:N names.
std::vector<std::string> SbatchArgs(const v1::SlurmConfig& config, const SbatchRequest& request);
// The Slurm job id in sbatch --parsable's output ("123" or "123;cluster").
absl::StatusOr<std::string> ParseSbatchId(std::string_view out);

// Where a Slurm job is, as squeue says.
struct SlurmJobState {
  std::string state;   // PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED, NODE_FAIL, ...
  std::string node;    // its node once it has one ("" before)
  std::string reason;  // why it waits or ended ("Resources", "NodeDown", "None")
  std::string name;    // its job name ("torchscan-<id>")
  std::string folder;  // its working folder (<state_dir>/slurm/<id>: whose job it is)
};
// squeue's arguments for every job of `partition` in any state still known to Slurm, and
// the parse of its output by Slurm job id.
std::vector<std::string> SqueueArgs(const std::string& partition);
std::map<std::string, SlurmJobState> ParseSqueue(std::string_view out);
// A state after which the job no longer runs (everything but PENDING, RUNNING, CONFIGURING,
// COMPLETING, SUSPENDED, REQUEUED, RESIZING, SIGNALING, STAGE_OUT).
bool IsSlurmStateFinal(const std::string& state);

// sinfo's arguments for the nodes of `partition` (one line each), and the parse: name,
// state (lower case, without sinfo's flag characters), CPUs, features, and the reason a
// node is down or drained in `reasons` by name.
std::vector<std::string> SinfoArgs(const std::string& partition);
std::vector<v1::SlurmNode> ParseSinfo(std::string_view out, std::map<std::string, std::string>* reasons = nullptr);

// `text` quoted for a POSIX shell (single quotes).
std::string ShellQuote(std::string_view text);

}  // namespace torchscan::daemon
