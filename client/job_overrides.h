// Flags given beside `--job FILE`: never silently ignored. The run settings a flag states
// plainly (--threads, --min-run-time, --rss, --label, --revision; for a compare job also --reverse and
// --rounds) override the file's fields and are listed; every other job flag (the model,
// inputs, variants, checks: what the file defines) is refused naming the flag. No gRPC.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "client/job_flags.h"
#include "proto/service.pb.h"

namespace torchscan {

// The flags that may go beside --job, as help and errors list them: "--threads, --min-run-time,
// --rss, --label and --revision", and for a compare job also --reverse and --rounds.
std::string JobFileOverrideFlags(bool is_compare);

// Applies `given` (the long names of the flags given on the command line beside --job,
// e.g. {"--min-run-time", "--rss"}; --job, --output, --force and --cancel-on-interrupt are
// not job flags and are ignored here) with their values from `run` and, for compare,
// `compare` (may be null for measure) to `spec`, the job file's. Each override is appended to
// `overrides` as "min_run_time_s 0.2 -> 1 (--min-run-time)". InvalidArgument "--model: cannot
// be combined with --job mlp_job.json, which defines the model, inputs and checks; edit the
// file or leave out --job" for any other flag, and the errors of the flags' own checks (a
// --threads of 0 ...). `spec` is unchanged on error.
absl::Status ApplyFlagsToJobFile(const std::vector<std::string>& given, const RunFlags& run,
                                 const CompareFlags* compare, const std::string& job_file, v1::JobSpec* spec,
                                 std::vector<std::string>* overrides);

}  // namespace torchscan
