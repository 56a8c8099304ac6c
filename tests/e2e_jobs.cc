#include "tests/e2e_jobs.h"

#include <chrono>
#include <regex>
#include <thread>

#include <gtest/gtest.h>

#include "io/proto_json.h"

namespace torchscan::e2e {

std::vector<std::string> With(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

std::string SubmittedId(const std::string& client_stderr) {
  std::smatch m;
  return std::regex_search(client_stderr, m, std::regex(R"(\[([^\]]+)\] submitted)")) ? m[1].str() : "";
}

v1::Job ShowJob(const TestDaemon& d, const std::string& id) {
  const CommandResult r = d.Client({"--json", "jobs", "show", id});
  v1::Job job;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(ParseJsonStrict(r.out, "jobs show", &job).ok()) << r.out;
  return job;
}

std::vector<v1::Job> ListJobs(const TestDaemon& d, const std::vector<std::string>& flags) {
  const CommandResult r = d.Client(With({"--json", "jobs", "list"}, flags));
  v1::ListJobsResponse list;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(ParseJsonStrict(r.out, "jobs list", &list).ok()) << r.out;
  return {list.jobs().begin(), list.jobs().end()};
}

v1::Job WaitForRunningJob(const TestDaemon& d) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    std::vector<v1::Job> running = ListJobs(d, {"--state", "running"});
    if (!running.empty() && running[0].worker_pid() > 0) return running[0];
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ADD_FAILURE() << "no job started running within 30 s";
  return {};
}

v1::Job WaitForPhase(const TestDaemon& d, const std::string& id, const std::string& phase_prefix, double timeout_s,
                     int64_t min_blocks) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  v1::Job job;
  while (std::chrono::steady_clock::now() < deadline) {
    job = ShowJob(d, id);
    if (job.state() == v1::Job::running && job.phase().rfind(phase_prefix, 0) == 0 && job.blocks_done() >= min_blocks)
      return job;
    if (job.state() != v1::Job::running && job.state() != v1::Job::queued) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "job " << id << " never ran in phase \"" << phase_prefix << "...\" with " << min_blocks
                << "+ blocks done; last seen " << v1::Job::State_Name(job.state()) << ", phase \"" << job.phase()
                << "\", " << job.blocks_done() << " blocks";
  return {};
}

std::future<CommandResult> InBackground(const TestDaemon& d, const std::vector<std::string>& args) {
  return std::async(std::launch::async, [&d, args] { return d.Client(args); });
}

}  // namespace torchscan::e2e
