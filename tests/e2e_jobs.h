// Job queries for end-to-end tests, through the real torchscan-client (--json): show, list,
// wait for a job to run or reach a phase, run a client in the background. Failures to query
// are gtest failures (ADD_FAILURE/EXPECT) and return an empty Job or list.
#pragma once

#include <future>
#include <string>
#include <vector>

#include "proto/service.pb.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {

// `base` followed by `more`.
std::vector<std::string> With(std::vector<std::string> base, const std::vector<std::string>& more);

// The job id from the client's "[ID] submitted to ..." stderr line; "" when there is none
// (the submission was refused or never made).
std::string SubmittedId(const std::string& client_stderr);

// torchscan-client jobs show ID.
v1::Job ShowJob(const TestDaemon& d, const std::string& id);

// torchscan-client jobs list FLAGS..., newest first.
std::vector<v1::Job> ListJobs(const TestDaemon& d, const std::vector<std::string>& flags = {});

// Waits (at most 30 s) until some job runs with a worker pid; returns it.
v1::Job WaitForRunningJob(const TestDaemon& d);

// Waits (at most `timeout_s`) until job `id` is running in a phase that starts with
// `phase_prefix` ("timing", "rss") with at least `min_blocks` blocks_done in it; returns it.
v1::Job WaitForPhase(const TestDaemon& d, const std::string& id, const std::string& phase_prefix, double timeout_s = 60,
                     int64_t min_blocks = 0);

// d.Client(args) on another thread.
std::future<CommandResult> InBackground(const TestDaemon& d, const std::vector<std::string>& args);

}  // namespace torchscan::e2e
