// `torchscan-client jobs list|show|cancel|watch|fetch`: a resident daemon's queue and history.
// Each returns an exit code (exit_codes.h); unknown ids are bad input (2), and so is no
// resident daemon given (--daemon or TORCHSCAN_DAEMON): a private daemon has no history.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "client/client_context.h"
#include "proto/service.pb.h"

namespace torchscan {

// A --state word: one of queued, running, succeeded, failed, cancelled, interrupted;
// InvalidArgument naming --state and the words otherwise.
absl::StatusOr<v1::Job::State> ParseJobState(const std::string& text);

int ListJobsCommand(const ClientContext& ctx, const std::string& state_filter, int limit);
int ShowJobCommand(const ClientContext& ctx, const std::string& id);
int CancelJobCommand(const ClientContext& ctx, const std::string& id);
int WatchJobCommand(const ClientContext& ctx, const std::string& id);
// Fetches a succeeded job's evidence into `output_dir` (or prints it with --json); evidence
// already there is replaced only with `force` (--force), per output_folder.h.
int FetchJobCommand(const ClientContext& ctx, const std::string& id, const std::string& output_dir, bool force);
// The daemon's hardware, software, devices and configuration.
int InfoCommand(const ClientContext& ctx);

}  // namespace torchscan
