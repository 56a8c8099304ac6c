#include "daemon/access_rules.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace torchscan::daemon {
namespace {

const char* kAlice = "alice-token-0123456789";
const char* kBob = "bob-admin-token-98765432";

TokenTable Tokens() {
  absl::StatusOr<TokenTable> table =
      TokenTable::Parse(std::string("alice ") + kAlice + "\nbob " + kBob + " admin\n", "test tokens");
  EXPECT_TRUE(table.ok()) << table.status();
  return *table;
}

std::string Bearer(const char* token) { return std::string("Bearer ") + token; }

TEST(IdentifyCaller, TcpNeedsAKnownToken) {
  const TokenTable tokens = Tokens();
  absl::StatusOr<Caller> caller = IdentifyCaller(std::nullopt, Bearer(kBob), &tokens);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->user, "bob");
  EXPECT_TRUE(caller->admin);
  EXPECT_FALSE(caller->on_socket);

  caller = IdentifyCaller(std::nullopt, "", &tokens);
  EXPECT_EQ(caller.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(absl::StrContains(caller.status().message(), "--token-file")) << caller.status();
  caller = IdentifyCaller(std::nullopt, "Basic abc", &tokens);
  EXPECT_EQ(caller.status().code(), absl::StatusCode::kUnauthenticated);
  const std::string forged = "mallory-000000000000000";
  caller = IdentifyCaller(std::nullopt, "Bearer " + forged, &tokens);
  EXPECT_EQ(caller.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_FALSE(absl::StrContains(caller.status().message(), forged));
  EXPECT_EQ(IdentifyCaller(std::nullopt, Bearer(kAlice), nullptr).status().code(),
            absl::StatusCode::kUnauthenticated);  // no token_file at all
}

TEST(IdentifyCaller, OnTheSocketTheLoginNameDecides) {
  const TokenTable tokens = Tokens();
  const Caller alice{"alice", false, true};
  absl::StatusOr<Caller> caller = IdentifyCaller(alice, "", &tokens);
  ASSERT_TRUE(caller.ok());
  EXPECT_EQ(caller->user, "alice");
  EXPECT_TRUE(caller->on_socket);
  EXPECT_EQ(IdentifyCaller(alice, "", nullptr)->user, "alice");

  // Her own token is welcome (and changes nothing but a token's admin flag).
  caller = IdentifyCaller(alice, Bearer(kAlice), &tokens);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->user, "alice");
  EXPECT_FALSE(caller->admin);
  caller = IdentifyCaller(Caller{"bob", false, true}, Bearer(kBob), &tokens);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_TRUE(caller->admin);
  EXPECT_TRUE(caller->on_socket);
  caller = IdentifyCaller(Caller{"alice", true, true}, Bearer(kAlice), &tokens);  // root or admin_group
  EXPECT_TRUE(caller->admin);

  // Someone else's token does not make alice bob: refused, naming both and the fix.
  caller = IdentifyCaller(alice, Bearer(kBob), &tokens);
  EXPECT_EQ(caller.status().code(), absl::StatusCode::kPermissionDenied);
  const std::string message(caller.status().message());
  EXPECT_TRUE(absl::StrContains(message, "issued to bob")) << message;
  EXPECT_TRUE(absl::StrContains(message, "comes from alice")) << message;
  EXPECT_TRUE(absl::StrContains(message, "run without --token-file and TORCHSCAN_TOKEN")) << message;
  EXPECT_FALSE(absl::StrContains(message, kBob));

  caller = IdentifyCaller(alice, "Bearer alice-forged-00000000000", &tokens);  // unknown: refused too
  EXPECT_EQ(caller.status().code(), absl::StatusCode::kUnauthenticated);
}

TEST(MayAccess, TheSubmitterAndAdminsMay) {
  for (JobAction action : {JobAction::kShow, JobAction::kWatch, JobAction::kFetch, JobAction::kCancel}) {
    EXPECT_TRUE(MayAccess(action, "job-1", "alice", Caller{"alice", false, true}, "").ok());
    EXPECT_TRUE(MayAccess(action, "job-1", "alice", Caller{"alice", false, false}, "").ok());  // same person, TCP
    EXPECT_TRUE(MayAccess(action, "job-1", "alice", Caller{"root", true, true}, "").ok());
    EXPECT_TRUE(MayAccess(action, "job-1", "alice", Caller{"bob", true, false}, "").ok());
    EXPECT_EQ(MayAccess(action, "job-1", "alice", Caller{"bob", false, true}, "").code(),
              absl::StatusCode::kPermissionDenied);
  }
}

TEST(MayAccess, RefusalsNameTheRuleAndHowToGetTheRightButNotTheOwner) {
  absl::Status refused = MayAccess(JobAction::kFetch, "job-1", "alice", Caller{"carol", false, true}, "benchadmins");
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(absl::StrContains(refused.message(), "carol may not fetch the result of job job-1, which another user"))
      << refused;
  EXPECT_TRUE(absl::StrContains(refused.message(), "usermod -aG benchadmins carol")) << refused;
  EXPECT_FALSE(absl::StrContains(refused.message(), "alice")) << refused;

  refused = MayAccess(JobAction::kCancel, "job-1", "alice", Caller{"carol", false, true}, "");
  EXPECT_TRUE(absl::StrContains(refused.message(), "carol may not cancel job job-1")) << refused;
  EXPECT_TRUE(absl::StrContains(refused.message(), "only a job's submitter or root may")) << refused;
  EXPECT_TRUE(absl::StrContains(refused.message(), "set admin_group (torchscand --admin-group GROUP)")) << refused;

  refused = MayAccess(JobAction::kWatch, "job-1", "alice", Caller{"carol", false, false}, "benchadmins");
  EXPECT_TRUE(absl::StrContains(refused.message(), "carol may not watch job job-1")) << refused;
  EXPECT_TRUE(absl::StrContains(refused.message(), "token_file line marked \"admin\"")) << refused;
  EXPECT_FALSE(absl::StrContains(refused.message(), "benchadmins")) << "TCP admins come from the token file";
}

TEST(ListedFor, OthersSeeWhoWhenAndWhereButNoLabelMetadataFilesOrResults) {
  v1::Job job;
  job.set_id("job-7");
  job.set_state(v1::Job::succeeded);
  job.set_submitter("alice");
  job.set_submitted_at("2026-12-06T07:00:00Z");
  job.set_finished_at("2026-12-06T07:01:00Z");
  job.mutable_spec()->set_label("private-bench");
  job.mutable_spec()->set_revision("r1");
  job.mutable_spec()->mutable_compare()->mutable_baseline()->mutable_input_metadata()->insert({"k", "v"});
  job.set_phase("timing baseline");
  job.set_error("a message from the model");
  job.set_latency_change("faster");
  job.mutable_summary()->set_run("candidate");

  EXPECT_EQ(ListedFor(job, Caller{"alice", false, true}).SerializeAsString(), job.SerializeAsString());
  EXPECT_EQ(ListedFor(job, Caller{"root", true, true}).SerializeAsString(), job.SerializeAsString());
  const v1::Job listed = ListedFor(job, Caller{"carol", false, true});
  EXPECT_EQ(listed.id(), "job-7");
  EXPECT_EQ(listed.state(), v1::Job::succeeded);
  EXPECT_EQ(listed.submitter(), "alice");
  EXPECT_EQ(listed.finished_at(), "2026-12-06T07:01:00Z");
  EXPECT_TRUE(listed.spec().has_compare());
  EXPECT_EQ(listed.spec().compare().ByteSizeLong(), 0u);  // an empty compare: the kind, no files or metadata
  EXPECT_TRUE(listed.spec().label().empty());
  for (const char* leaked : {"private-bench", "r1", "timing baseline", "a message", "faster", "candidate"})
    EXPECT_FALSE(absl::StrContains(listed.DebugString(), leaked)) << leaked;
}

// A worker's pid is a way into its process (issue 41: /proc/<pid>/root): admins only.
TEST(ShownTo, OnlyAdminsSeeAWorkersPid) {
  v1::Job job;
  job.set_submitter("alice");
  job.set_state(v1::Job::running);
  job.set_worker_pid(4242);
  EXPECT_EQ(ShownTo(job, Caller{"root", true, true}).worker_pid(), 4242);
  EXPECT_EQ(ShownTo(job, Caller{"alice", false, true}).worker_pid(), 0);
  EXPECT_EQ(ListedFor(job, Caller{"alice", false, true}).worker_pid(), 0);
  EXPECT_EQ(ListedFor(job, Caller{"carol", false, true}).worker_pid(), 0);
  EXPECT_EQ(ShownTo(job, Caller{"alice", false, true}).state(), v1::Job::running);
}

}  // namespace
}  // namespace torchscan::daemon
