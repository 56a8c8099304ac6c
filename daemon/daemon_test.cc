// The Daemon class in-process, with fake_worker standing in for torchscan-worker (its mode
// is the job's label): real worker processes, no gRPC, no LibTorch.
#include "daemon/daemon.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "absl/strings/match.h"
#include "io/proto_json.h"
#include "libtorch_build_info.h"
#include "worker/job_spec_file.h"

namespace torchscan::daemon {
namespace {

namespace fs = std::filesystem;

const Caller kTester{"tester", false};  // the submitter of the jobs these tests submit
const Caller kAdmin{"root", true, true};

v1::DaemonConfig Config(const std::string& name) {
  v1::DaemonConfig config;
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  fs::remove_all(dir);
  config.set_state_dir(dir);
  config.add_devices("cpu");
  config.set_default_intra_op_threads(1);
  config.set_default_inter_op_threads(1);
  config.mutable_limits()->set_max_queue_length(10);
  config.mutable_limits()->set_max_queued_per_user(10);  // one user, "tester", submits them all
  config.mutable_limits()->set_job_wall_time_s(60);
  config.mutable_limits()->set_max_upload_bytes(1 << 20);
  config.set_worker_path(std::string(std::getenv("TEST_SRCDIR")) + "/torchscan/daemon/fake_worker");
  return config;
}

std::unique_ptr<Daemon> Start(const v1::DaemonConfig& config) {
  absl::StatusOr<std::unique_ptr<Daemon>> daemon = Daemon::Open(config);
  EXPECT_TRUE(daemon.ok()) << daemon.status();
  (*daemon)->Start();
  return *std::move(daemon);
}

v1::SubmitRequest Fake(const std::string& mode) {
  v1::SubmitRequest request;
  request.mutable_spec()->set_label(mode);
  request.mutable_spec()->mutable_measure()->mutable_workload()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  return request;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

v1::JobRequest Id(const std::string& id) {
  v1::JobRequest request;
  request.set_id(id);
  return request;
}

std::string Submit(Daemon& daemon, const std::string& mode) {
  absl::StatusOr<v1::Job> job = daemon.Submit(Fake(mode), "tester");
  EXPECT_TRUE(job.ok()) << job.status();
  return job.ok() ? job->id() : "";
}

// Polls until the job is in `state` (10 s at most) and returns it.
v1::Job WaitFor(Daemon& daemon, const std::string& id, v1::Job::State state) {
  v1::Job job;
  for (int i = 0; i < 1000; ++i) {
    job = *daemon.GetJob(Id(id), kTester);
    if (job.state() == state) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(v1::Job::State_Name(job.state()), v1::Job::State_Name(state)) << job.error();
  return job;
}

TEST(Daemon, RunsAJobAndFetchesItsReport) {
  auto daemon = Start(Config("runs"));
  const std::string id = Submit(*daemon, "ok");
  EXPECT_EQ(id, "job-000001");
  v1::Job job = WaitFor(*daemon, id, v1::Job::succeeded);
  EXPECT_EQ(job.submitter(), "tester");
  EXPECT_FALSE(job.submitted_at().empty());
  EXPECT_FALSE(job.started_at().empty());
  EXPECT_FALSE(job.finished_at().empty());
  EXPECT_EQ(job.worker_pid(), 0);
  EXPECT_EQ(job.spec().options().intra_op_threads(), 1);  // the daemon's default, recorded
  absl::StatusOr<v1::JobResult> result = daemon->FetchResult(Id(id), kTester);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->report().name(), "measurement");
}

TEST(Daemon, AJobNamingASlurmNodeIsRefusedByADaemonThatRunsItsOwnJobs) {
  auto daemon = Start(Config("node"));
  v1::SubmitRequest request = Fake("ok");
  request.mutable_spec()->set_node("bench1");
  const absl::Status refused = daemon->Submit(request, "tester").status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(refused.message(), "spec.node: ")) << refused;
  EXPECT_NE(refused.message().find("leave --node out"), std::string::npos) << refused;
  EXPECT_EQ(daemon->ListJobs(v1::ListJobsRequest(), kTester)->jobs_size(), 0);  // nothing stored
}

TEST(Daemon, UploadedFilesGoToTheWorkerOnceNotWithEveryListingOrEvent) {
  const v1::DaemonConfig config = Config("uploads");
  auto daemon = Start(config);
  v1::SubmitRequest request = Fake("ok");
  v1::WorkloadSpec* w = request.mutable_spec()->mutable_measure()->mutable_workload();
  w->mutable_model()->mutable_torchscript()->set_module_bytes(std::string(200000, 'm'));
  w->mutable_model()->mutable_torchscript()->set_source_name("/home/ann/mlp.pt");
  w->add_inputs()->set_tensor_bytes(std::string(50000, 't'));
  w->mutable_inputs(0)->set_source_name("/home/ann/x.pt");
  absl::StatusOr<v1::Job> submitted = daemon->Submit(request, "tester");
  ASSERT_TRUE(submitted.ok()) << submitted.status();
  const std::string id = submitted->id();
  WaitFor(*daemon, id, v1::Job::succeeded);
  v1::ListJobsRequest all;
  for (const v1::Job& job : {*submitted, *daemon->GetJob(Id(id), kTester), daemon->ListJobs(all, kTester)->jobs(0)}) {
    const v1::WorkloadSpec& listed = job.spec().measure().workload();
    EXPECT_TRUE(listed.model().torchscript().has_module_bytes());
    EXPECT_EQ(listed.model().torchscript().module_bytes(), "");
    EXPECT_EQ(listed.model().torchscript().source_name(), "/home/ann/mlp.pt");
    EXPECT_EQ(listed.inputs(0).tensor_bytes(), "");
    EXPECT_EQ(listed.inputs(0).source_name(), "/home/ann/x.pt");
  }
  const std::string folder = config.state_dir() + "/jobs/" + id;
  EXPECT_LT(fs::file_size(folder + "/job.json"), 10000u);
  v1::JobSpec given;  // what the worker read
  ASSERT_TRUE(worker::LoadJobSpec(folder, &given).ok());
  EXPECT_TRUE(fs::exists(folder + "/spec.binpb"));  // binary: uploaded bytes are not base64 JSON
  EXPECT_EQ(given.measure().workload().model().torchscript().module_bytes(), std::string(200000, 'm'));
  EXPECT_EQ(given.measure().workload().inputs(0).tensor_bytes(), std::string(50000, 't'));
  EXPECT_EQ(given.options().intra_op_threads(), 1);  // with the daemon's defaults
}

TEST(Daemon, ComparisonsCarryTheirLabelAndCheck) {
  auto daemon = Start(Config("compare"));
  v1::Job job = WaitFor(*daemon, Submit(*daemon, "compare"), v1::Job::succeeded);
  EXPECT_EQ(job.latency_change(), "faster");
  EXPECT_EQ(job.output_check(), "passed");
}

TEST(Daemon, JobsRunOneAtATimeInSubmissionOrder) {
  auto daemon = Start(Config("order"));
  const std::string log = std::string(std::getenv("TEST_TMPDIR")) + "/order.log";
  fs::remove(log);
  std::vector<std::string> ids;
  // The first job's 2 s keep the other two queued while their positions are read.
  for (int i = 0; i < 3; ++i) ids.push_back(Submit(*daemon, (i == 0 ? "ok sleep=2 log=" : "ok sleep=0.1 log=") + log));
  EXPECT_EQ(daemon->GetJob(Id(ids[2]), kTester)->queue_position(),
            daemon->GetJob(Id(ids[1]), kTester)->queue_position() + 1);
  for (const std::string& id : ids) WaitFor(*daemon, id, v1::Job::succeeded);
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 6u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(absl::StartsWith(lines[2 * i], "start ") && absl::EndsWith(lines[2 * i], ids[i])) << lines[2 * i];
    EXPECT_TRUE(absl::StartsWith(lines[2 * i + 1], "end ") && absl::EndsWith(lines[2 * i + 1], ids[i]));
  }
  // Recorded timestamps never overlap.
  for (int i = 1; i < 3; ++i)
    EXPECT_LE(daemon->GetJob(Id(ids[i - 1]), kTester)->finished_at(),
              daemon->GetJob(Id(ids[i]), kTester)->started_at());
}

TEST(Daemon, CancelsQueuedAndRunningJobs) {
  auto daemon = Start(Config("cancel"));
  const std::string running = Submit(*daemon, "ok sleep=30");
  const std::string queued = Submit(*daemon, "ok");
  WaitFor(*daemon, running, v1::Job::running);

  // Another user may not cancel the tester's jobs; the submitter and an admin may.
  absl::StatusOr<v1::Job> refused = daemon->Cancel(Id(queued), Caller{"mallory", false});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "mallory may not cancel job " + queued))
      << refused.status();
  EXPECT_EQ(daemon->GetJob(Id(queued), kTester)->state(), v1::Job::queued);

  absl::StatusOr<v1::Job> cancelled = daemon->Cancel(Id(queued), Caller{"tester", false});
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_EQ(cancelled->state(), v1::Job::cancelled);
  EXPECT_EQ(cancelled->error(), "cancelled by tester while queued");

  const auto start = std::chrono::steady_clock::now();
  cancelled = daemon->Cancel(Id(running), Caller{"bob", true});
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5);
  EXPECT_EQ(cancelled->state(), v1::Job::cancelled);
  EXPECT_TRUE(absl::StartsWith(cancelled->error(), "cancelled by bob while running")) << cancelled->error();

  EXPECT_EQ(daemon->Cancel(Id(running), Caller{"bob", true}).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(daemon->FetchResult(Id(running), kTester).status().code(), absl::StatusCode::kFailedPrecondition);
  WaitFor(*daemon, Submit(*daemon, "ok"), v1::Job::succeeded);  // the daemon carries on
}

// Showing, watching and fetching follow the cancel rule (issue 41); lists show others' jobs
// without their details, and a label's history only the caller's own jobs.
TEST(Daemon, OnlyTheSubmitterOrAnAdminShowsWatchesOrFetchesAJob) {
  auto daemon = Start(Config("owners"));
  v1::SubmitRequest request = Fake("ok");
  request.mutable_spec()->set_label("tester-private");
  absl::StatusOr<v1::Job> submitted = daemon->Submit(request, "tester");
  ASSERT_TRUE(submitted.ok()) << submitted.status();
  const std::string id = submitted->id();
  ASSERT_TRUE(WaitFor(*daemon, id, v1::Job::succeeded).has_summary());

  const Caller mallory{"mallory", false, true};
  EXPECT_EQ(daemon->GetJob(Id(id), mallory).status().code(), absl::StatusCode::kPermissionDenied);
  const absl::Status fetch = daemon->FetchResult(Id(id), mallory).status();
  EXPECT_EQ(fetch.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_FALSE(absl::StrContains(fetch.message(), "tester")) << fetch;
  int events = 0;
  WatchSink sink;
  sink.write = [&](const v1::JobEvent&) { return ++events > 0; };
  EXPECT_EQ(daemon->Watch(Id(id), mallory, sink).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(events, 0);
  EXPECT_EQ(daemon->GetJob(Id("job-999999"), mallory).status().code(), absl::StatusCode::kNotFound);

  const absl::StatusOr<v1::ListJobsResponse> listed = daemon->ListJobs(v1::ListJobsRequest(), mallory);
  ASSERT_TRUE(listed.ok() && listed->jobs_size() == 1);
  EXPECT_EQ(listed->jobs(0).id(), id);
  EXPECT_EQ(listed->jobs(0).state(), v1::Job::succeeded);
  EXPECT_TRUE(listed->jobs(0).spec().label().empty());
  EXPECT_FALSE(listed->jobs(0).has_summary());
  v1::HistoryRequest history;
  history.set_name("tester-private");
  EXPECT_EQ(daemon->History(history, mallory)->jobs_size(), 0);
  EXPECT_EQ(daemon->History(history, kTester)->jobs_size(), 1);

  const Caller admin{"root", true, true};
  EXPECT_TRUE(daemon->FetchResult(Id(id), admin).ok());
  EXPECT_EQ(daemon->ListJobs(v1::ListJobsRequest(), admin)->jobs(0).spec().label(), "tester-private");
  EXPECT_EQ(daemon->History(history, admin)->jobs_size(), 1);
}

TEST(Daemon, WorkerFailuresFailTheJobWithTheReason) {
  auto daemon = Start(Config("failures"));
  const std::string crash = Submit(*daemon, "crash");
  const std::string exit3 = Submit(*daemon, "exit exit=3");
  const std::string noresult = Submit(*daemon, "noresult");
  const std::string fine = Submit(*daemon, "ok");
  EXPECT_TRUE(
      absl::StartsWith(WaitFor(*daemon, crash, v1::Job::failed).error(), "worker killed by signal 11 (SIGSEGV)"));
  EXPECT_EQ(WaitFor(*daemon, exit3, v1::Job::failed).error(),
            "worker exited with status 3 (workload error): torchscan-worker: fake failure 3");
  EXPECT_TRUE(absl::StrContains(WaitFor(*daemon, noresult, v1::Job::failed).error(), "result is unusable"));
  WaitFor(*daemon, fine, v1::Job::succeeded);
  absl::Status fetch = daemon->FetchResult(Id(crash), kTester).status();
  EXPECT_EQ(fetch.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(fetch.message(), "SIGSEGV")) << fetch;
}

// Its own daemon: a wall-time limit short enough to test is too short for the other jobs'
// start and result writes on a loaded machine.
TEST(Daemon, AWorkerPastTheWallTimeIsKilled) {
  v1::DaemonConfig config = Config("wall-time");
  config.mutable_limits()->set_job_wall_time_s(2);
  auto daemon = Start(config);
  const std::string slow = Submit(*daemon, "ok sleep=30");
  EXPECT_EQ(WaitFor(*daemon, slow, v1::Job::failed).error(),
            "worker exceeded job_wall_time_s 2 and was killed (SIGKILL)");
  WaitFor(*daemon, Submit(*daemon, "ok"), v1::Job::succeeded);  // the daemon carries on
}

TEST(Daemon, RefusalsNameTheFieldOrLimit) {
  v1::DaemonConfig config = Config("refusals");
  config.mutable_limits()->set_max_queue_length(1);
  config.mutable_limits()->set_max_queued_per_user(1);
  auto daemon = Start(config);

  v1::SubmitRequest bad = Fake("ok");
  bad.mutable_spec()->mutable_measure()->mutable_workload()->clear_model();
  absl::Status s = daemon->Submit(bad, "x").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(s.message(), "spec.measure.workload.model:")) << s;
  EXPECT_EQ(daemon->Submit(v1::SubmitRequest(), "x").status().code(), absl::StatusCode::kInvalidArgument);

  const std::string running = Submit(*daemon, "ok sleep=30");
  WaitFor(*daemon, running, v1::Job::running);
  const std::string queued = Submit(*daemon, "ok");
  s = daemon->Submit(Fake("ok"), "x").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(s.message(), "max_queue_length 1")) << s;

  EXPECT_EQ(daemon->GetJob(Id("job-999999"), kTester).status().code(), absl::StatusCode::kNotFound);
  // The fix is the client's command, not the RPC's name.
  EXPECT_NE(daemon->GetJob(Id("job-999999"), kTester).status().message().find("`torchscan-client jobs list`"),
            std::string::npos);
  EXPECT_EQ(daemon->Cancel(Id("nope"), Caller{"x", true}).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(daemon->FetchResult(Id(queued), kTester).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(daemon->FetchResult(Id(running), kTester).status().code(), absl::StatusCode::kFailedPrecondition);
}

// One user's burst is capped (max_queued_per_user) and leaves room for another user's job,
// which runs before the burst's next one (issue 41: 200 submissions from one user filled the
// queue and everyone else got "queue is full").
TEST(Daemon, OneUsersBurstLeavesRoomForAnothersJobWhichRunsNext) {
  v1::DaemonConfig config = Config("fair");
  config.mutable_limits()->set_max_queued_per_user(2);
  auto daemon = Start(config);
  const std::string running = Submit(*daemon, "ok sleep=30");
  WaitFor(*daemon, running, v1::Job::running);
  const std::string a1 = Submit(*daemon, "ok");
  const std::string a2 = Submit(*daemon, "ok");
  const absl::Status burst = daemon->Submit(Fake("ok"), "tester").status();
  EXPECT_EQ(burst.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(burst.message(), "tester has 2 jobs queued")) << burst;
  EXPECT_TRUE(absl::StrContains(burst.message(), "max_queued_per_user 2")) << burst;

  const Caller carol{"carol", false};
  absl::StatusOr<v1::Job> other = daemon->Submit(Fake("ok"), "carol");
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->queue_position(), 1);  // never served: before the tester's waiting jobs
  EXPECT_EQ(daemon->GetJob(Id(a1), kTester)->queue_position(), 2);
  EXPECT_EQ(daemon->GetJob(Id(a2), kTester)->queue_position(), 3);

  ASSERT_TRUE(daemon->Cancel(Id(running), kTester).ok());
  const v1::Job last = WaitFor(*daemon, a2, v1::Job::succeeded);
  absl::StatusOr<v1::Job> ran = daemon->GetJob(Id(other->id()), carol);
  ASSERT_TRUE(ran.ok() && ran->state() == v1::Job::succeeded) << ran.status();
  EXPECT_LE(ran->finished_at(), WaitFor(*daemon, a1, v1::Job::succeeded).started_at());
  EXPECT_LE(ran->finished_at(), last.started_at());
}

// A record write that fails (as on a full state_dir; here a folder squats on the temporary
// file's name, so that open fails) keeps the previous file whole, the daemon serves the new
// state from memory, and the record reaches the disk with the next one written.
TEST(Daemon, ARecordThatCannotBeWrittenIsServedAndStoredLater) {
  const v1::DaemonConfig config = Config("unsaved");
  auto daemon = Start(config);
  const std::string id = Submit(*daemon, "ok sleep=3");  // still running when its record is read
  WaitFor(*daemon, id, v1::Job::running);
  const std::string record = config.state_dir() + "/jobs/" + id + "/job.json";
  const std::string blocker = record + ".tmp." + std::to_string(::getpid());
  ASSERT_TRUE(fs::create_directory(blocker));
  v1::Job stored;
  ASSERT_TRUE(LoadJsonStrict(record, &stored).ok());
  ASSERT_EQ(stored.state(), v1::Job::running);
  const std::string running_text = Slurp(record);

  WaitFor(*daemon, id, v1::Job::succeeded);  // served from memory
  EXPECT_EQ(Slurp(record), running_text) << "a failed record write changed the stored record";
  fs::remove(blocker);
  const std::string next = Submit(*daemon, "ok");  // the next record written takes the unsaved one along
  ASSERT_TRUE(LoadJsonStrict(record, &stored).ok());
  EXPECT_EQ(stored.state(), v1::Job::succeeded);
  EXPECT_EQ(stored.SerializeAsString(), daemon->GetJob(Id(id), kTester)->SerializeAsString());
  WaitFor(*daemon, next, v1::Job::succeeded);
}

// A submission the state_dir has no room for is refused naming state_dir and the fix, and
// leaves nothing behind.
TEST(Daemon, ASubmissionThatCannotBeStoredIsRefusedNamingStateDir) {
  const v1::DaemonConfig config = Config("unstorable");
  auto daemon = Start(config);
  WaitFor(*daemon, Submit(*daemon, "ok"), v1::Job::succeeded);
  const std::string folder = config.state_dir() + "/jobs/job-000002";
  ASSERT_TRUE(fs::create_directories(folder + "/spec.binpb.tmp." + std::to_string(::getpid())));
  absl::Status s = daemon->Submit(Fake("ok"), "tester").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(s.message(), "state_dir " + config.state_dir() + ": the job could not be stored")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "bytes free there")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "nothing was queued; free space in the daemon's state_dir")) << s;
  EXPECT_EQ(daemon->ListJobs(v1::ListJobsRequest(), kTester)->jobs_size(), 1);
  EXPECT_FALSE(fs::exists(folder + "/spec.binpb"));
}

// The job record's timeline: from submission, the daemon's own phases, then the worker's.
TEST(Daemon, TheJobRecordCarriesEachPhaseFromQueueWaitToTheEnd) {
  auto daemon = Start(Config("record-timeline"));
  const std::string first = Submit(*daemon, "ok sleep=2");  // the others stay queued meanwhile
  const std::string second = Submit(*daemon, "ok");
  const std::string cancelled = Submit(*daemon, "ok");
  ASSERT_TRUE(daemon->Cancel(Id(cancelled), Caller{"tester", false}).ok());
  WatchSink sink;
  sink.write = [](const v1::JobEvent&) { return true; };
  ASSERT_TRUE(daemon->Watch(Id(second), kTester, sink).ok());
  const v1::Job job = *daemon->GetJob(Id(second), kTester);
  std::vector<std::string> phases;
  double previous_end = 0;
  for (const v1::PhaseSpan& span : job.timeline().spans()) {
    phases.push_back(span.phase());
    EXPECT_GE(span.start_s(), previous_end) << span.phase();
    EXPECT_GE(span.end_s(), span.start_s()) << span.phase();
    previous_end = span.end_s();
  }
  // The first job's end started the spare, which ran the second: it had loaded already.
  EXPECT_EQ(phases, (std::vector<std::string>{"queue wait", "worker start (warm spare)", "fake ok"}));
  EXPECT_LT(job.timeline().spans(0).start_s(), 0.1);  // opened as it was queued
  EXPECT_GE(job.timeline().spans(0).end_s(), 1.5);    // it waited for the first job's 2 s sleep
  EXPECT_EQ(job.timeline().started_at(), job.submitted_at());
  EXPECT_EQ(job.timeline().clock(), "std::chrono::steady_clock");
  const absl::StatusOr<v1::ListJobsResponse> listing = daemon->ListJobs(v1::ListJobsRequest(), kTester);
  ASSERT_TRUE(listing.ok()) << listing.status();
  for (const v1::Job& listed : listing->jobs())
    EXPECT_TRUE(listed.timeline().spans().empty()) << listed.id();  // listings stay small
  const v1::Job gone = *daemon->GetJob(Id(cancelled), kTester);
  ASSERT_EQ(gone.timeline().spans_size(), 1);  // cancelled while queued
  EXPECT_EQ(gone.timeline().spans(0).phase(), "queue wait");
}

TEST(Daemon, WatchStreamsChangesUntilTheJobFinishes) {
  auto daemon = Start(Config("watch"));
  const std::string first = Submit(*daemon, "ok sleep=2");  // the second is queued when watched
  const std::string second = Submit(*daemon, "ok sleep=0.2");
  std::vector<v1::JobEvent> events;
  WatchSink sink;
  sink.write = [&](const v1::JobEvent& e) {
    events.push_back(e);
    return true;
  };
  absl::Status watched = daemon->Watch(Id(second), kTester, sink);
  ASSERT_TRUE(watched.ok()) << watched;
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front().job().state(), v1::Job::queued);
  EXPECT_EQ(events.back().job().state(), v1::Job::succeeded);
  EXPECT_TRUE(absl::StartsWith(events.back().message(), "state succeeded")) << events.back().message();
  bool saw_phase = false, saw_running = false;
  for (const v1::JobEvent& e : events) {
    saw_phase = saw_phase || absl::StrContains(e.message(), "phase fake ok");
    saw_running = saw_running || absl::StrContains(e.message(), "state running");
  }
  EXPECT_TRUE(saw_running);
  EXPECT_TRUE(saw_phase);
  EXPECT_EQ(daemon->GetJob(Id(first), kTester)->state(), v1::Job::succeeded);

  // A finished job: one event, then the end. A client gone: Cancelled.
  events.clear();
  EXPECT_TRUE(daemon->Watch(Id(first), kTester, sink).ok());
  EXPECT_EQ(events.size(), 1u);
  const std::string slow = Submit(*daemon, "ok sleep=30");
  sink.write = [](const v1::JobEvent&) { return false; };
  EXPECT_EQ(daemon->Watch(Id(slow), kTester, sink).code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(daemon->Watch(Id("job-404"), kTester, sink).code(), absl::StatusCode::kNotFound);
}

TEST(Daemon, ShutdownInterruptsAndRestartRunsTheQueue) {
  v1::DaemonConfig config = Config("restart");
  std::string running, queued;
  {
    auto daemon = Start(config);
    running = Submit(*daemon, "ok sleep=30");
    queued = Submit(*daemon, "ok");
    WaitFor(*daemon, running, v1::Job::running);
    daemon->Shutdown("interrupted: test shutdown");
    v1::Job job = *daemon->GetJob(Id(running), kTester);
    EXPECT_EQ(job.state(), v1::Job::interrupted);
    EXPECT_EQ(job.error(), "interrupted: test shutdown");
    EXPECT_EQ(daemon->GetJob(Id(queued), kTester)->state(), v1::Job::queued);
    EXPECT_EQ(daemon->Submit(Fake("ok"), "x").status().code(), absl::StatusCode::kUnavailable);
  }
  auto daemon = Start(config);
  EXPECT_TRUE(daemon->load_problems().empty());
  WaitFor(*daemon, queued, v1::Job::succeeded);
  EXPECT_EQ(daemon->GetJob(Id(running), kTester)->state(), v1::Job::interrupted);
  EXPECT_EQ(Submit(*daemon, "ok"), "job-000003");  // numbering continues
}

TEST(Daemon, ListsNewestFirstWithFilters) {
  auto daemon = Start(Config("list"));
  const std::string a = Submit(*daemon, "ok");
  const std::string b = Submit(*daemon, "exit exit=2");
  WaitFor(*daemon, a, v1::Job::succeeded);
  WaitFor(*daemon, b, v1::Job::failed);
  v1::ListJobsRequest request;
  absl::StatusOr<v1::ListJobsResponse> all = daemon->ListJobs(request, kTester);
  ASSERT_EQ(all->jobs_size(), 2);
  EXPECT_EQ(all->jobs(0).id(), b);
  request.add_states(v1::Job::succeeded);
  EXPECT_EQ(daemon->ListJobs(request, kTester)->jobs(0).id(), a);
  request.clear_states();
  request.set_limit(1);
  EXPECT_EQ(daemon->ListJobs(request, kTester)->jobs_size(), 1);
  request.set_limit(-1);
  EXPECT_EQ(daemon->ListJobs(request, kTester).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Daemon, MeasureAndCompareJobsGetTheirSummaryCalibrationsAndFailuresNone) {
  const v1::DaemonConfig config = Config("summary");
  auto daemon = Start(config);
  const v1::Job measured = WaitFor(*daemon, Submit(*daemon, "ok"), v1::Job::succeeded);
  EXPECT_EQ(measured.summary().run(), "measured");
  EXPECT_EQ(measured.summary().latency().median_s(), 0.003);
  EXPECT_EQ(measured.summary().latency().block_count(), 1);
  EXPECT_FALSE(measured.summary().has_baseline_latency());
  EXPECT_EQ(measured.summary().device(), "cpu");
  EXPECT_TRUE(absl::StartsWith(measured.summary().machine(), "cpu=unknown; cores=")) << measured.summary().machine();
  const v1::Job compared = WaitFor(*daemon, Submit(*daemon, "compare"), v1::Job::succeeded);
  EXPECT_EQ(compared.summary().run(), "candidate");
  EXPECT_EQ(compared.summary().latency().median_s(), 0.001);
  EXPECT_EQ(compared.summary().baseline_latency().median_s(), 0.002);
  v1::SubmitRequest calibration;
  calibration.mutable_spec()->set_label("calibrate");
  calibration.mutable_spec()->mutable_calibrate();
  absl::StatusOr<v1::Job> calibrating = daemon->Submit(calibration, "tester");
  ASSERT_TRUE(calibrating.ok()) << calibrating.status();
  EXPECT_FALSE(WaitFor(*daemon, calibrating->id(), v1::Job::succeeded).has_summary());
  EXPECT_FALSE(WaitFor(*daemon, Submit(*daemon, "exit exit=2"), v1::Job::failed).has_summary());
  v1::Job stored;  // in job.json, so that a restart keeps it
  ASSERT_TRUE(LoadJsonStrict(config.state_dir() + "/jobs/" + compared.id() + "/job.json", &stored).ok());
  EXPECT_EQ(stored.summary().SerializeAsString(), compared.summary().SerializeAsString());
}

// `ids` of the history page as job ids, newest first.
std::vector<std::string> PageIds(const absl::StatusOr<v1::HistoryResponse>& page) {
  std::vector<std::string> ids;
  EXPECT_TRUE(page.ok()) << page.status();
  if (page.ok())
    for (const v1::Job& job : page->jobs()) ids.push_back(job.id());
  return ids;
}

v1::HistoryRequest HistoryOf(const std::string& name, int page_size) {
  v1::HistoryRequest request;
  request.set_name(name);
  request.set_page_size(page_size);
  return request;
}

// The fake worker's mode is the job's label, so every job of one name behaves alike: states
// other than succeeded come from a job that holds the worker and a cancel while queued.
TEST(Daemon, HistoryPagesANamesJobsNewestFirstFilteredByState) {
  auto daemon = Start(Config("history"));
  const std::string blocker = Submit(*daemon, "ok sleep=30");
  std::vector<std::string> a;
  for (int i = 0; i < 3; ++i) {
    a.push_back(Submit(*daemon, "ok series=a"));
    Submit(*daemon, "ok series=b");
  }
  ASSERT_TRUE(daemon->Cancel(Id(a[1]), Caller{"tester", false}).ok());
  v1::HistoryRequest filtered = HistoryOf("ok series=a", 0);
  filtered.add_states(v1::Job::queued);
  EXPECT_EQ(PageIds(daemon->History(filtered, kTester)), (std::vector<std::string>{a[2], a[0]}));
  filtered.set_states(0, v1::Job::cancelled);
  EXPECT_EQ(PageIds(daemon->History(filtered, kTester)), std::vector<std::string>{a[1]});
  filtered.add_states(v1::Job::failed);
  EXPECT_EQ(PageIds(daemon->History(filtered, kTester)), std::vector<std::string>{a[1]});

  ASSERT_TRUE(daemon->Cancel(Id(blocker), Caller{"tester", false}).ok());
  WaitFor(*daemon, a[2], v1::Job::succeeded);
  absl::StatusOr<v1::HistoryResponse> first = daemon->History(HistoryOf("ok series=a", 2), kTester);
  EXPECT_EQ(PageIds(first), (std::vector<std::string>{a[2], a[1]}));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->jobs(0).summary().latency().median_s(), 0.003);
  EXPECT_FALSE(first->jobs(1).has_summary());   // cancelled
  EXPECT_FALSE(first->jobs(0).has_timeline());  // GetJob has it
  EXPECT_TRUE(daemon->GetJob(Id(a[2]), kTester)->has_timeline());
  const std::string between = Submit(*daemon, "ok series=a");  // newer than every page given
  v1::HistoryRequest next = HistoryOf("ok series=a", 2);
  next.set_page_token(first->next_page_token());
  absl::StatusOr<v1::HistoryResponse> second = daemon->History(next, kTester);
  EXPECT_EQ(PageIds(second), std::vector<std::string>{a[0]});
  EXPECT_EQ(second->next_page_token(), "");
  WaitFor(*daemon, between, v1::Job::succeeded);
  EXPECT_EQ(PageIds(daemon->History(HistoryOf("ok series=a", 0), kTester)),
            (std::vector<std::string>{between, a[2], a[1], a[0]}));
  filtered.clear_states();
  filtered.add_states(v1::Job::succeeded);
  EXPECT_EQ(PageIds(daemon->History(filtered, kTester)), (std::vector<std::string>{between, a[2], a[0]}));
  EXPECT_EQ(PageIds(daemon->History(HistoryOf("ok series=b", 1), kTester)).size(), 1u);
  EXPECT_TRUE(PageIds(daemon->History(HistoryOf("nobody", 0), kTester)).empty());
}

TEST(Daemon, HistoryRefusesBadFieldsNamingThem) {
  auto daemon = Start(Config("history_refusals"));
  WaitFor(*daemon, Submit(*daemon, "ok"), v1::Job::succeeded);
  auto refused = [&](const v1::HistoryRequest& request, const std::string& field) {
    absl::StatusOr<v1::HistoryResponse> page = daemon->History(request, kTester);
    EXPECT_EQ(page.status().code(), absl::StatusCode::kInvalidArgument) << field;
    EXPECT_TRUE(absl::StartsWith(page.status().message(), field + ": ")) << page.status();
  };
  refused(HistoryOf("", 0), "name");
  refused(HistoryOf("ok", -1), "page_size");
  refused(HistoryOf("ok", 1001), "page_size");
  v1::HistoryRequest garbage = HistoryOf("ok", 10);
  garbage.set_page_token("bm90IGEgdG9rZW4");  // "not a token"
  refused(garbage, "page_token");
}

TEST(Daemon, HistorySurvivesARestartAndOlderJobsGetTheirSummaryAtLoad) {
  const v1::DaemonConfig config = Config("history_restart");
  std::string measured, compared;
  {
    auto daemon = Start(config);
    measured = WaitFor(*daemon, Submit(*daemon, "ok"), v1::Job::succeeded).id();
    compared = WaitFor(*daemon, Submit(*daemon, "compare"), v1::Job::succeeded).id();
  }
  // As an older daemon left it: no summary in job.json.
  const std::string record = config.state_dir() + "/jobs/" + measured + "/job.json";
  v1::Job old;
  ASSERT_TRUE(LoadJsonStrict(record, &old).ok());
  old.clear_summary();
  ASSERT_TRUE(SaveJson(old, record).ok());
  auto daemon = Start(config);
  EXPECT_TRUE(daemon->load_problems().empty());
  absl::StatusOr<v1::HistoryResponse> page = daemon->History(HistoryOf("ok", 0), kTester);
  ASSERT_EQ(PageIds(page), std::vector<std::string>{measured});
  EXPECT_EQ(page->jobs(0).summary().latency().median_s(), 0.003);
  v1::Job rewritten;
  ASSERT_TRUE(LoadJsonStrict(record, &rewritten).ok());
  EXPECT_EQ(rewritten.summary().latency().median_s(), 0.003);
  EXPECT_EQ(daemon->History(HistoryOf("compare", 0), kTester)->jobs(0).summary().baseline_latency().median_s(), 0.002);
}

TEST(Daemon, InfoDescribesTheDaemon) {
  auto daemon = Start(Config("info"));
  absl::StatusOr<v1::DaemonInfo> info = daemon->Info(v1::InfoRequest(), kAdmin);
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->version().empty());
  EXPECT_FALSE(info->environment().hostname().empty());
  // The workers' LibTorch, named without the daemon loading it.
  EXPECT_EQ(info->environment().libtorch_version(), TORCHSCAN_LIBTORCH_VERSION);
  EXPECT_EQ(info->config().worker_path(), daemon->config().worker_path());
  EXPECT_FALSE(info->started_at().empty());

  // Another user sees what a user needs, not the paths and names only the admin needs.
  absl::StatusOr<v1::DaemonInfo> theirs = daemon->Info(v1::InfoRequest(), Caller{"carol", false, true});
  ASSERT_TRUE(theirs.ok());
  EXPECT_EQ(theirs->config().devices(0), "cpu");
  EXPECT_EQ(theirs->config().limits().max_queue_length(), 10);
  EXPECT_EQ(theirs->config().state_dir(), daemon->config().state_dir());
  EXPECT_TRUE(theirs->config().worker_path().empty());
  EXPECT_EQ(theirs->config().listen_size(), 0);
  EXPECT_EQ(theirs->spare_worker_pid(), 0);
  ASSERT_EQ(theirs->devices_size(), 1);
  EXPECT_EQ(theirs->devices(0).device(), "cpu");
  EXPECT_EQ(theirs->devices(0).spare_worker_pid(), 0);
}

// ---------------------------------------------------------------- the warm spare worker

// Sets an environment variable the fake worker reads, for one test (declared before the
// daemon, so that it outlives the spares the daemon starts).
class FakeWorkerEnv {
 public:
  FakeWorkerEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~FakeWorkerEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

// The daemon's spare worker's pid once it has one other than `not_this` (5 s at most; 0 if none).
int SparePid(Daemon& daemon, int not_this = 0) {
  for (int i = 0; i < 500; ++i) {
    const int pid = daemon.Info(v1::InfoRequest(), kAdmin)->spare_worker_pid();
    if (pid != 0 && pid != not_this) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

// The running job's worker pid (10 s at most; 0 if it never ran).
int WorkerPid(Daemon& daemon, const std::string& id) {
  for (int i = 0; i < 1000; ++i) {
    const v1::Job job = *daemon.GetJob(Id(id), kAdmin);  // only admins see a worker's pid
    if (job.worker_pid() != 0) return job.worker_pid();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

std::vector<std::string> PhaseNames(const v1::Job& job) {
  std::vector<std::string> names;
  for (const v1::PhaseSpan& span : job.timeline().spans()) names.push_back(span.phase());
  return names;
}

bool Gone(int pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

TEST(Daemon, AJobRunsOnTheWarmSpareWhichIsThenReplaced) {
  auto daemon = Start(Config("spare-used"));
  const int spare = SparePid(*daemon);
  ASSERT_NE(spare, 0);
  EXPECT_GT(daemon->Info(v1::InfoRequest(), kAdmin)->spare_worker_rss_bytes(), 0);
  bool ready = false;  // seen by the idle executor's next look (every second; 10 s under load)
  for (int i = 0; i < 1000 && !ready; ++i) {
    ready = daemon->Info(v1::InfoRequest(), kAdmin)->spare_worker_ready();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(ready);
  const std::string id = Submit(*daemon, "ok sleep=0.3");
  EXPECT_EQ(WorkerPid(*daemon, id), spare);  // the spare process itself ran the job
  const v1::Job job = WaitFor(*daemon, id, v1::Job::succeeded);
  EXPECT_EQ(job.worker(), "warm spare");
  EXPECT_EQ(PhaseNames(job), (std::vector<std::string>{"queue wait", "worker start (warm spare)", "fake ok"}));
  EXPECT_TRUE(daemon->FetchResult(Id(id), kTester).ok());
  EXPECT_TRUE(Gone(spare));  // used once, and reaped
  // A new spare for the next job: every job in a fresh process.
  const int next = SparePid(*daemon, spare);
  EXPECT_NE(next, 0);
  const std::string second = Submit(*daemon, "ok");
  EXPECT_EQ(WaitFor(*daemon, second, v1::Job::succeeded).worker(), "warm spare");
}

TEST(Daemon, WithoutTheSpareEveryJobStartsAColdWorker) {
  v1::DaemonConfig config = Config("spare-off");
  config.set_no_spare_worker(true);
  auto daemon = Start(config);
  const std::string id = Submit(*daemon, "ok");
  const v1::Job job = WaitFor(*daemon, id, v1::Job::succeeded);
  EXPECT_EQ(job.worker(), "cold: spare worker off (no_spare_worker)");
  EXPECT_EQ(PhaseNames(job),
            (std::vector<std::string>{"queue wait", "worker start (cold: spare worker off (no_spare_worker))",
                                      "LibTorch load", "fake ok"}));
  EXPECT_EQ(daemon->Info(v1::InfoRequest(), kAdmin)->spare_worker_pid(), 0);
}

TEST(Daemon, AJobArrivingWhileTheSpareLoadsWaitsForIt) {
  FakeWorkerEnv slow("FAKE_SPARE_LOAD_S", "3");
  auto daemon = Start(Config("spare-loading"));
  const std::string id = Submit(*daemon, "ok");
  const v1::Job job = WaitFor(*daemon, id, v1::Job::succeeded);
  EXPECT_EQ(job.worker(), "warm spare");
  ASSERT_EQ(PhaseNames(job).at(1), "worker start (warm spare)");
  EXPECT_GE(job.timeline().spans(1).end_s() - job.timeline().spans(0).start_s(), 2);  // it waited for the load
}

TEST(Daemon, ASpareThatCannotLoadLeavesTheJobToAColdWorkerSayingWhy) {
  FakeWorkerEnv broken("FAKE_SPARE_FAIL", "1");
  auto daemon = Start(Config("spare-broken"));
  const std::string id = Submit(*daemon, "ok");
  const v1::Job job = WaitFor(*daemon, id, v1::Job::succeeded);
  EXPECT_TRUE(absl::StartsWith(job.worker(), "cold: the spare worker ended while loading: worker exited with status 3"))
      << job.worker();
  EXPECT_TRUE(absl::StrContains(job.worker(), "fake spare cannot load")) << job.worker();  // its stderr's last line
  const std::vector<std::string> phases = PhaseNames(job);
  EXPECT_EQ(phases.at(phases.size() - 2), "LibTorch load");
  EXPECT_EQ(phases.at(phases.size() - 3), "worker start (" + job.worker() + ")");
}

TEST(Daemon, ASpareKilledWhileIdleIsReplacedAndTheNextJobSucceeds) {
  auto daemon = Start(Config("spare-killed"));
  const int spare = SparePid(*daemon);
  ASSERT_NE(spare, 0);
  // Idle: ready as the daemon saw it (its idle check reads the spare's "ready" line within a
  // second; a fixed sleep was too short on a loaded machine, where the kill then came "while
  // loading" by the daemon's reading).
  for (int i = 0; i < 500 && !daemon->Info(v1::InfoRequest(), kAdmin)->spare_worker_ready(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(daemon->Info(v1::InfoRequest(), kAdmin)->spare_worker_ready());
  ASSERT_EQ(::kill(spare, SIGKILL), 0);
  const std::string id = Submit(*daemon, "ok");
  const v1::Job job = WaitFor(*daemon, id, v1::Job::succeeded);
  // Either the daemon's idle check replaced it first, or the job saw it dead and went cold,
  // or the kill was not visible yet and the spare died as it was handed the job (next test).
  if (job.worker() != "warm spare") {
    EXPECT_TRUE(job.worker() == "cold: the spare worker ended while idle: worker killed by signal 9 (SIGKILL)" ||
                absl::StartsWith(job.worker(), "cold: the spare worker ended before it began the job"))
        << job.worker();
  }
  EXPECT_NE(SparePid(*daemon, spare), 0);  // replaced
  EXPECT_TRUE(Gone(spare));
}

// A spare that dies as it is handed the job (killed a moment before, unseen) never began it:
// the job runs on a cold worker instead of failing, and says so.
TEST(Daemon, ASpareThatDiesAsItIsHandedTheJobLeavesItToAColdWorker) {
  FakeWorkerEnv dies("FAKE_SPARE_DIE_ON_HANDOFF", "1");
  auto daemon = Start(Config("spare-dies-on-handoff"));
  ASSERT_NE(SparePid(*daemon), 0);
  const std::string id = Submit(*daemon, "ok");
  const v1::Job job = WaitFor(*daemon, id, v1::Job::succeeded);
  EXPECT_EQ(job.worker(), "cold: the spare worker ended before it began the job: worker killed by signal 9 (SIGKILL)");
  const std::vector<std::string> phases = PhaseNames(job);
  EXPECT_NE(std::find(phases.begin(), phases.end(), "worker start (" + job.worker() + ")"), phases.end());
  EXPECT_NE(std::find(phases.begin(), phases.end(), "LibTorch load"), phases.end());
}

TEST(Daemon, TheWallTimeCountsFromTheHandoffNotTheSparesIdleTime) {
  v1::DaemonConfig config = Config("spare-wall-time");
  config.mutable_limits()->set_job_wall_time_s(3);  // the job's 0.2 s and its start and write, under load
  auto daemon = Start(config);
  ASSERT_NE(SparePid(*daemon), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));  // idle longer than the limit
  const std::string id = Submit(*daemon, "ok sleep=0.2");
  EXPECT_EQ(WaitFor(*daemon, id, v1::Job::succeeded).worker(), "warm spare");
  const std::string late = Submit(*daemon, "ok sleep=30");
  const v1::Job killed = WaitFor(*daemon, late, v1::Job::failed);
  EXPECT_TRUE(absl::StrContains(killed.error(), "exceeded job_wall_time_s 3")) << killed.error();
}

TEST(Daemon, CancelKillsTheSpareThatRunsTheJob) {
  auto daemon = Start(Config("spare-cancel"));
  const int spare = SparePid(*daemon);
  ASSERT_NE(spare, 0);
  const std::string id = Submit(*daemon, "ok sleep=30");
  ASSERT_EQ(WorkerPid(*daemon, id), spare);
  const absl::StatusOr<v1::Job> cancelled = daemon->Cancel(Id(id), Caller{"tester", false});
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_EQ(cancelled->state(), v1::Job::cancelled);
  EXPECT_TRUE(Gone(spare));
}

TEST(Daemon, StoppingTheDaemonLeavesNoSpareBehind) {
  auto daemon = Start(Config("spare-stop"));
  const int spare = SparePid(*daemon);
  ASSERT_NE(spare, 0);
  daemon->Shutdown("test stop");
  EXPECT_TRUE(Gone(spare));
  EXPECT_NE(::kill(-spare, 0), 0);  // nothing of its process group either
  EXPECT_EQ(daemon->Info(v1::InfoRequest(), kAdmin)->spare_worker_pid(), 0);
}

}  // namespace
}  // namespace torchscan::daemon
