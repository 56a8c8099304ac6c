// How a job ended on a Slurm node, as torchscan-node-job writes it for the front daemon
// (<state_dir>/slurm/<id>/node-outcome.txt, worker/state_folder.h) and the front reads it:
//   line 1   "succeeded", "failed" or "killed" (the worker was killed: Slurm stopped the job)
//   line 2   the host that ran it
//   rest     the error (empty on success; newlines kept)
// The result itself stays in the job's result.json. Pure; gRPC-free.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "daemon/job_runner.h"

namespace torchscan::daemon {

struct NodeOutcome {
  JobRunOutcome outcome;  // state, killed and error (no result)
  std::string host;
};

std::string FormatNodeOutcome(const JobRunOutcome& outcome, const std::string& host);
// nullopt for text that is not FormatNodeOutcome's (a torn or foreign file).
std::optional<NodeOutcome> ParseNodeOutcome(std::string_view text);

}  // namespace torchscan::daemon
