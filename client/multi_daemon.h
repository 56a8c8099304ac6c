// measure / compare / example on several daemons at once (--daemon repeated, or
// --daemons-file): the same job goes to every machine, each runs it on its own hardware, and
// the client collects one report per machine. Timings are never pooled across machines:
// each machine's evidence is written to <output>/<machine>/ (without --output:
// ./torchscan-<job id>/<machine>/, that machine's job id) and summarized under its own
// heading, where <machine> is the daemon's host name (made unique, safe as a folder name).
// --output is checked before anything is submitted (output_folder.h, per machine folder);
// Ctrl-C ends the waits and leaves every job running (or cancels them with
// --cancel-on-interrupt), naming each job's `jobs cancel` command.
#pragma once

#include <string>
#include <vector>

#include "client/client_context.h"
#include "client/run_job_commands.h"
#include "proto/service.pb.h"

namespace torchscan {

// Returns the most severe exit code over the machines (exit_codes.h): any machine that could
// not be reached or whose job failed gives that code; else 1 when an output check failed.
// Prints one line per machine as it finishes, then each summary; with --json, one
// JobCommandOutput document instead, one entry per machine (run_job_commands.h).
int RunJobOnDaemons(const ClientContext& ctx, const v1::JobSpec& spec, const JobRunOptions& options);

// A folder name for a machine: its host name (or, if empty, its address) with every
// character outside [A-Za-z0-9._-] replaced by '_', suffixed "-2", "-3" ... when `taken`
// already has it. Adds the result to `taken`.
std::string MachineFolderName(const std::string& hostname, const std::string& address, std::vector<std::string>* taken);

}  // namespace torchscan
