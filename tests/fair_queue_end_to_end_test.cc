// One user's burst leaves room for another's job (issue 41 item 6: 200 submissions from one user
// filled the 100-job queue and everyone else got "queue is full"). Real daemon, real clients run
// as two throw-away local users over the unix socket: with --max-queue 4 each user may hold one
// queued job (a quarter); the burst's second is refused naming the cap, the other user's job is
// queued and runs next, ahead of the burst's queued one.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "tests/access_fixtures.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

namespace fs = std::filesystem;

// The id of a queued job of `submitter`, waiting at most 30 s; "" when none came.
std::string QueuedJobOf(const TestDaemon& d, const std::string& submitter) {
  for (int i = 0; i < 300; ++i) {
    for (const v1::Job& job : ListJobs(d, {"--state", "queued"}))
      if (job.submitter() == submitter) return job.id();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return "";
}

TEST(FairQueue, OneUsersBurstLeavesRoomForAnothersJobWhichRunsNext) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: it creates throw-away local users (useradd) to submit as";
  const std::string suffix = std::to_string(::getpid() % 100000);
  const std::string users = "tsq" + suffix, alice = "tsqa" + suffix, bob = "tsqb" + suffix;
  LocalAccounts accounts("/tmp/torchscan-fair-queue-" + suffix);
  accounts.AddGroup(users);
  accounts.AddUser(alice, users);
  accounts.AddUser(bob, users);
  if (HasFatalFailure()) return;
  const std::string client = accounts.dir() + "/torchscan-client";
  fs::copy_file(Runfile("client/torchscan-client"), client);
  ::chmod(client.c_str(), 0755);
  TestDaemon d(TempDir("fair_queue"), {"--socket-group", users, "--max-queue", "4"});
  ::chmod(fs::path(d.address().substr(std::string("unix:").size())).parent_path().c_str(), 0755);
  const auto as = [&](const std::string& user, const std::vector<std::string>& args) {
    return accounts.RunAs(user, client, With({"--daemon", d.address()}, args));
  };
  const std::vector<std::string> long_job = {"measure", "--model", "linear", "--min-run-time", "100"};
  const std::vector<std::string> short_job = {"measure", "--model", "linear", "--min-run-time", "0.02"};

  std::future<CommandResult> running = std::async(std::launch::async, [&] { return as(alice, long_job); });
  const v1::Job first = WaitForRunningJob(d);
  ASSERT_EQ(first.submitter(), alice);
  std::future<CommandResult> queued = std::async(std::launch::async, [&] { return as(alice, short_job); });
  const std::string alice_queued = QueuedJobOf(d, alice);
  ASSERT_FALSE(alice_queued.empty());
  // The burst goes on: refused, naming the cap; the queue itself (4) is far from full.
  const CommandResult refused = as(alice, short_job);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(
      absl::StrContains(refused.err, alice + " has 1 jobs queued, the most one user may (max_queued_per_user 1"))
      << refused.err;
  std::future<CommandResult> other = std::async(std::launch::async, [&] { return as(bob, short_job); });
  const std::string bob_queued = QueuedJobOf(d, bob);
  ASSERT_FALSE(bob_queued.empty()) << "bob's job was not queued";

  // Bob was served longest ago (never): his job runs next, though alice's was queued first.
  EXPECT_EQ(d.Client({"jobs", "cancel", first.id()}).exit_code, 0);
  EXPECT_EQ(other.get().exit_code, 0);
  EXPECT_EQ(queued.get().exit_code, 0);
  const v1::Job bobs = ShowJob(d, bob_queued), alices = ShowJob(d, alice_queued);
  EXPECT_LT(bobs.started_at(), alices.started_at()) << "bob's job started " << bobs.started_at() << ", alice's "
                                                    << alices.started_at();  // RFC 3339 UTC: ordered as text
  running.wait();
}

}  // namespace
}  // namespace torchscan::e2e
