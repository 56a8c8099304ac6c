#include "daemon/job_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "daemon/fake_report.h"
#include "daemon/job_cache.h"
#include "io/file_io.h"
#include "io/proto_json.h"

namespace torchscan::daemon {
namespace {

namespace fs = std::filesystem;

std::string FreshDir(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  fs::remove_all(dir);
  return dir;
}

v1::Job MakeJob(int64_t number, v1::Job::State state) {
  v1::Job job;
  job.set_id(JobStore::JobId(number));
  job.set_state(state);
  job.set_submitter("local");
  job.mutable_spec()->set_label("job " + std::to_string(number));
  job.mutable_spec()->mutable_measure()->mutable_workload()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  return job;
}

TEST(JobStore, IdsSortInSubmissionOrder) {
  EXPECT_EQ(JobStore::JobId(42), "job-000042");
  EXPECT_EQ(JobStore::JobNumber("job-000042"), 42);
  EXPECT_EQ(JobStore::JobNumber("job-1234567"), 1234567);
  EXPECT_EQ(JobStore::JobNumber("job-42"), -1);
  EXPECT_EQ(JobStore::JobNumber("../etc"), -1);
}

// The on-disk layout (worker/state_folder.h), spelled out here as literals so that renaming a
// constant fails this test: folders of older daemons would no longer be found.
TEST(JobStore, FilesHaveTheDocumentedNames) {
  const std::string dir = FreshDir("layout");
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  EXPECT_TRUE(fs::exists(dir + "/torchscand.lock"));
  const std::string id = JobStore::JobId(7);
  EXPECT_EQ(store.JobDir(id), dir + "/jobs/job-000007");
  EXPECT_EQ(store.ResultPath(id), dir + "/jobs/job-000007/result.json");
  EXPECT_EQ(store.StderrPath(id), dir + "/jobs/job-000007/worker.stderr");
  ASSERT_TRUE(store.SaveJob(MakeJob(7, v1::Job::queued)).ok());
  ASSERT_TRUE(store.WriteSpec(id, MakeJob(7, v1::Job::queued).spec()).ok());
  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir + "/jobs/job-000007")) files.insert(entry.path().filename());
  EXPECT_EQ(files, (std::set<std::string>{"job.json", "spec.binpb"}));
}

int Mode(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 07777) : -1;
}

// Job folders are the daemon's alone; the state folder and jobs/ can be passed, not listed.
TEST(JobStore, JobFoldersAndFilesArePrivate) {
  const std::string dir = FreshDir("modes");
  fs::create_directories(dir + "/jobs/job-000003");  // an older daemon's, open to all
  ::chmod((dir + "/jobs/job-000003").c_str(), 0755);
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  EXPECT_EQ(Mode(dir), 0711);
  EXPECT_EQ(Mode(dir + "/jobs"), 0711);
  EXPECT_EQ(Mode(dir + "/jobs/job-000003"), 0700);
  const std::string id = JobStore::JobId(7);
  ASSERT_TRUE(store.SaveJob(MakeJob(7, v1::Job::queued)).ok());
  ASSERT_TRUE(store.WriteSpec(id, MakeJob(7, v1::Job::queued).spec()).ok());
  EXPECT_EQ(Mode(store.JobDir(id)), 0700);
  EXPECT_EQ(Mode(store.JobDir(id) + "/job.json"), 0600);
  EXPECT_EQ(Mode(store.JobDir(id) + "/spec.binpb"), 0600);
}

// What a worker leaves in its folder is taken back before it is read: a link it planted is
// removed, not followed, and what it points to is untouched.
TEST(JobStore, TakeBackRemovesLinksAndClosesTheRest) {
  const std::string dir = FreshDir("take_back");
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  const std::string id = JobStore::JobId(1);
  ASSERT_TRUE(store.WriteSpec(id, MakeJob(1, v1::Job::queued).spec()).ok());
  const std::string secret = dir + "/secret";
  std::ofstream(secret) << "SECRET";
  ::chmod(secret.c_str(), 0640);
  fs::create_symlink(secret, store.ResultPath(id));
  fs::create_symlink(secret, store.StderrPath(id));
  fs::create_directory(store.JobDir(id) + "/nested");
  std::ofstream(store.JobDir(id) + "/left.txt") << "left";
  ::chmod((store.JobDir(id) + "/left.txt").c_str(), 0666);
  ::chmod(store.JobDir(id).c_str(), 0777);
  ASSERT_TRUE(store.TakeBack(id).ok());
  EXPECT_FALSE(fs::exists(fs::symlink_status(store.ResultPath(id))));
  EXPECT_FALSE(fs::exists(fs::symlink_status(store.StderrPath(id))));
  EXPECT_TRUE(fs::is_directory(store.JobDir(id) + "/nested"));
  EXPECT_EQ(Mode(store.JobDir(id)), 0700);
  EXPECT_EQ(Mode(store.JobDir(id) + "/left.txt"), 0600);
  EXPECT_EQ(Mode(secret), 0640);
  EXPECT_EQ(ReadFile(secret).value_or(""), "SECRET");
  EXPECT_EQ(store.LoadResult(id).status().code(), absl::StatusCode::kNotFound);
}

TEST(JobStore, RecordsRoundTrip) {
  JobStore store(FreshDir("round_trip"));
  ASSERT_TRUE(store.Open().ok());
  v1::Job job = MakeJob(1, v1::Job::succeeded);
  job.set_latency_change("faster");
  job.mutable_summary()->set_run("candidate");  // (without one the load would look for result.json)
  job.mutable_summary()->mutable_latency()->set_median_s(0.001);
  job.mutable_summary()->set_machine("cpu=Xeon; blas=libopenblas.so.0");
  ASSERT_TRUE(store.SaveJob(job).ok());
  JobStore::Loaded loaded = store.LoadAll("now");
  ASSERT_EQ(loaded.jobs.size(), 1u);
  EXPECT_EQ(loaded.jobs[0].SerializeAsString(), job.SerializeAsString());
  EXPECT_TRUE(loaded.problems.empty());
  EXPECT_EQ(loaded.last_number, 1);
}

TEST(JobStore, RestartInterruptsRunningAndKeepsQueuedInOrder) {
  const std::string dir = FreshDir("restart");
  {
    JobStore store(dir);
    ASSERT_TRUE(store.Open().ok());
    ASSERT_TRUE(store.SaveJob(MakeJob(3, v1::Job::queued)).ok());
    ASSERT_TRUE(store.SaveJob(MakeJob(1, v1::Job::succeeded)).ok());
    v1::Job running = MakeJob(2, v1::Job::running);
    running.set_worker_pid(1234);
    ASSERT_TRUE(store.SaveJob(running).ok());
    ASSERT_TRUE(store.SaveJob(MakeJob(10, v1::Job::queued)).ok());
  }
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  JobStore::Loaded loaded = store.LoadAll("2024-01-01T00:00:00Z");
  ASSERT_EQ(loaded.jobs.size(), 4u);
  EXPECT_EQ(loaded.jobs[0].id(), "job-000001");
  EXPECT_EQ(loaded.jobs[1].state(), v1::Job::interrupted);
  EXPECT_EQ(loaded.jobs[1].worker_pid(), 0);
  EXPECT_EQ(loaded.jobs[1].finished_at(), "2024-01-01T00:00:00Z");
  EXPECT_NE(loaded.jobs[1].error().find("daemon stopped"), std::string::npos);
  EXPECT_EQ(loaded.interrupted, std::vector<std::string>{"job-000002"});
  EXPECT_EQ(loaded.jobs[2].id(), "job-000003");
  EXPECT_EQ(loaded.jobs[2].state(), v1::Job::queued);
  EXPECT_EQ(loaded.jobs[3].id(), "job-000010");
  EXPECT_EQ(loaded.last_number, 10);
  // The interruption is on disk: a second restart sees it without rewriting.
  JobStore::Loaded again = store.LoadAll("later");
  EXPECT_EQ(again.jobs[1].state(), v1::Job::interrupted);
  EXPECT_EQ(again.jobs[1].finished_at(), "2024-01-01T00:00:00Z");
}

TEST(JobStore, CorruptRecordsAreReportedAndSkipped) {
  const std::string dir = FreshDir("corrupt");
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  ASSERT_TRUE(store.SaveJob(MakeJob(1, v1::Job::failed)).ok());
  fs::create_directories(store.JobDir("job-000002"));
  std::ofstream(store.JobDir("job-000002") + "/job.json") << "{\"id\": \"job-000002\", \"state\": ";  // torn
  fs::create_directories(store.JobDir("job-000003"));                                                 // no job.json
  ASSERT_TRUE(store.SaveJob(MakeJob(4, v1::Job::queued)).ok());
  fs::rename(store.JobDir("job-000004") + "/job.json", store.JobDir("job-000004") + "/x");
  v1::Job other = MakeJob(5, v1::Job::queued);
  ASSERT_TRUE(store.SaveJob(other).ok());
  other.set_id("job-000006");
  ASSERT_TRUE(SaveJson(other, store.JobDir("job-000005") + "/job.json").ok());  // id mismatch
  fs::create_directories(dir + "/jobs/stray");

  JobStore::Loaded loaded = store.LoadAll("now");
  ASSERT_EQ(loaded.jobs.size(), 1u);
  EXPECT_EQ(loaded.jobs[0].id(), "job-000001");
  EXPECT_EQ(loaded.problems.size(), 5u);
  EXPECT_EQ(loaded.last_number, 5);
  for (const std::string& p : loaded.problems) EXPECT_FALSE(p.empty());
}

// A reader loops over job.json while a writer rewrites it with versions of different sizes
// and contents: every read must be one whole version, never a prefix of one (torn) or the
// start of one and the end of another (mixed). The loop runs until both sides did enough
// work to have overlapped many times (or a minute passed, which fails the counts below).
TEST(JobStore, WritesAreAtomicAndLeaveNoTemporaries) {
  JobStore store(FreshDir("atomic"));
  ASSERT_TRUE(store.Open().ok());
  std::vector<v1::Job> versions;
  std::set<std::string> texts;
  for (int i = 0; i < 8; ++i) {
    v1::Job job = MakeJob(1, v1::Job::queued);
    // 37 bytes to about 6 KB, each version its own letter throughout, so that a mix of two
    // versions matches neither.
    job.mutable_spec()->set_label(std::string(37 + (i * 1543) % 6000, static_cast<char>('a' + i)));
    job.set_phase("phase " + std::to_string(i));
    versions.push_back(job);
    texts.insert(ToJson(job));
  }
  ASSERT_EQ(texts.size(), versions.size());
  const std::string path = store.JobDir(versions[0].id()) + "/job.json";
  ASSERT_TRUE(store.SaveJob(versions[0]).ok());

  constexpr int kMinWrites = 200;
  constexpr int kMinReads = 2000;
  std::atomic<int> reads{0};
  std::atomic<bool> stop{false};
  // The reader's, read after join.
  int bad_reads = 0;
  std::vector<std::string> bad;  // the first few
  std::set<std::string> seen;
  std::thread reader([&] {
    while (!stop.load()) {
      absl::StatusOr<std::string> text = ReadFile(path);
      if (!text.ok() || texts.count(*text) == 0) {
        ++bad_reads;
        if (bad.size() < 3)
          bad.push_back(text.ok() ? absl::StrCat(text->size(), " bytes: ", text->substr(0, 80))
                                  : std::string(text.status().message()));
      } else {
        seen.insert(*text);
      }
      ++reads;
    }
  });
  int writes = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while ((writes < kMinWrites || reads.load() < kMinReads) && std::chrono::steady_clock::now() < deadline) {
    const absl::Status saved = store.SaveJob(versions[(writes * 3 + 1) % versions.size()]);
    if (!saved.ok()) {
      ADD_FAILURE() << "write " << writes << ": " << saved;  // (no ASSERT: the reader must be joined)
      break;
    }
    ++writes;
  }
  stop = true;
  reader.join();
  std::printf("atomic writes: %d writes, %d reads, %zu versions seen, %d bad reads\n", writes, reads.load(),
              seen.size(), bad_reads);
  EXPECT_GE(writes, kMinWrites);
  EXPECT_GE(reads.load(), kMinReads);
  EXPECT_EQ(bad_reads, 0) << "a reader saw a partial or mixed job.json: " << absl::StrJoin(bad, " | ");
  EXPECT_GE(seen.size(), 2u) << "the reader never saw the file change: the test proved nothing";

  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(store.JobDir(versions[0].id())))
    files.push_back(entry.path().filename().string());
  EXPECT_EQ(files, std::vector<std::string>{"job.json"});
  ASSERT_GT(writes, 0);
  EXPECT_EQ(store.LoadAll("now").jobs[0].phase(), versions[((writes - 1) * 3 + 1) % versions.size()].phase());
}

TEST(JobStore, DiscardRefusedRemovesOnlyAnUnrecordedSubmission) {
  JobStore store(FreshDir("discard"));
  ASSERT_TRUE(store.Open().ok());
  ASSERT_TRUE(store.WriteSpec("job-000001", MakeJob(1, v1::Job::queued).spec()).ok());
  EXPECT_TRUE(store.DiscardRefused("job-000001").ok());
  EXPECT_FALSE(fs::exists(store.JobDir("job-000001")));
  EXPECT_TRUE(store.DiscardRefused("job-000002").ok());  // nothing was made: nothing to do
  // A recorded job is never discarded: its folder and record stay.
  ASSERT_TRUE(store.SaveJob(MakeJob(3, v1::Job::queued)).ok());
  absl::Status s = store.DiscardRefused("job-000003");
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find(store.JobDir("job-000003")), std::string::npos) << s;
  EXPECT_TRUE(fs::exists(store.JobDir("job-000003") + "/job.json"));
  EXPECT_GT(store.FreeBytes(), 0);
}

TEST(JobStore, SecondOpenOfTheSameStateDirIsRefused) {
  const std::string dir = FreshDir("locked");
  JobStore first(dir);
  ASSERT_TRUE(first.Open().ok());
  JobStore second(dir);
  absl::Status s = second.Open();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find(dir), std::string::npos) << s;
}

TEST(JobStore, UncreatableStateDirIsAnError) {
  const std::string file = FreshDir("a_file");
  std::ofstream(file) << "x";
  JobStore store(file + "/state");
  EXPECT_FALSE(store.Open().ok());
}

TEST(JobStore, ResultsAreValidatedOnLoad) {
  JobStore store(FreshDir("results"));
  ASSERT_TRUE(store.Open().ok());
  EXPECT_EQ(store.LoadResult("job-000001").status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(store.HasSpec("job-000001"));
  ASSERT_TRUE(store.WriteSpec("job-000001", MakeJob(1, v1::Job::queued).spec()).ok());
  EXPECT_TRUE(store.HasSpec("job-000001"));
  v1::JobResult result;
  *result.mutable_report() = FakeReport("measurement");
  ASSERT_TRUE(SaveJson(result, store.ResultPath("job-000001")).ok());
  absl::StatusOr<v1::JobResult> loaded = store.LoadResult("job-000001");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->report().name(), "measurement");

  result.mutable_report()->set_work_units(0);
  ASSERT_TRUE(SaveJson(result, store.ResultPath("job-000001")).ok());
  absl::StatusOr<v1::JobResult> invalid = store.LoadResult("job-000001");
  EXPECT_EQ(invalid.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(invalid.status().message().find("report.work_units"), std::string::npos) << invalid.status();

  std::ofstream(store.ResultPath("job-000001")) << "{}";
  EXPECT_EQ(store.LoadResult("job-000001").status().code(), absl::StatusCode::kDataLoss);
}

// The noise floor lives at <state_dir>/noise_floor.json (spelled out: see
// FilesHaveTheDocumentedNames), survives a new store on the same folder, and a damaged file is
// DataLoss naming it, never a crash.
TEST(JobStore, TheNoiseFloorRoundTripsAndADamagedOneIsNamed) {
  const std::string dir = FreshDir("noise_floor");
  v1::NoiseFloor floor;
  floor.set_measured_at("2026-12-01T10:00:00.000Z");
  floor.set_job_id("job-000003");
  floor.set_pairs(20);
  floor.set_resolvable_change(0.031);
  {
    JobStore store(dir);
    ASSERT_TRUE(store.Open().ok());
    EXPECT_EQ(store.LoadNoiseFloor().status().code(), absl::StatusCode::kNotFound);
    ASSERT_TRUE(store.SaveNoiseFloor(floor).ok());
  }
  EXPECT_TRUE(fs::exists(dir + "/noise_floor.json"));
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  absl::StatusOr<v1::NoiseFloor> loaded = store.LoadNoiseFloor();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->SerializeAsString(), floor.SerializeAsString());

  for (const std::string& damaged : {std::string("{\"pairs\": "), std::string("{}"), std::string("[1]")}) {
    std::ofstream(dir + "/noise_floor.json") << damaged;
    const absl::Status s = store.LoadNoiseFloor().status();
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << damaged;
    EXPECT_NE(s.message().find("noise_floor.json"), std::string::npos) << s;
  }
}

TEST(JobStore, EachSlurmNodeHasItsOwnNoiseFloor) {
  const std::string dir = FreshDir("node_noise_floors");
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  v1::NoiseFloor a, b;
  a.set_measured_at("2026-12-01T10:00:00.000Z");
  a.set_job_id("job-000001");
  b.set_measured_at("2026-12-01T11:00:00.000Z");
  b.set_job_id("job-000002");
  ASSERT_TRUE(store.SaveNoiseFloor(a, "node-a").ok());
  ASSERT_TRUE(store.SaveNoiseFloor(b, "gpu.b_2").ok());
  EXPECT_TRUE(fs::exists(dir + "/noise_floors/node-a.json"));
  EXPECT_FALSE(fs::exists(dir + "/noise_floor.json"));  // this machine's stays apart
  EXPECT_EQ(store.NoiseFloorKeys(), (std::vector<std::string>{"gpu.b_2", "node-a"}));
  EXPECT_EQ(store.LoadNoiseFloor("node-a")->job_id(), "job-000001");
  EXPECT_EQ(store.LoadNoiseFloor("gpu.b_2")->job_id(), "job-000002");
  EXPECT_EQ(store.LoadNoiseFloor().status().code(), absl::StatusCode::kNotFound);
  // A name that is not a plain host name never becomes a path.
  EXPECT_EQ(store.SaveNoiseFloor(a, "../escape").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.LoadNoiseFloor("../noise_floor").status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(fs::exists(dir + "/escape.json"));
}

// Each GPU's calibration is its own noise floor, on this machine and on a node.
TEST(JobStore, EachGpuHasItsOwnNoiseFloor) {
  const std::string dir = FreshDir("gpu_noise_floors");
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  EXPECT_EQ(NoiseFloorKey("", "cpu"), "");
  EXPECT_EQ(NoiseFloorKey("node-a", ""), "node-a");
  EXPECT_EQ(NoiseFloorKey("", "cuda:1"), "@cuda_1");
  EXPECT_EQ(NoiseFloorKey("node-a", "cuda:0"), "node-a@cuda_0");
  v1::NoiseFloor cpu, gpu, node_gpu;
  for (auto [floor, id] : {std::pair{&cpu, "job-1"}, {&gpu, "job-2"}, {&node_gpu, "job-3"}}) {
    floor->set_measured_at("2026-12-01T10:00:00.000Z");
    floor->set_job_id(id);
  }
  ASSERT_TRUE(store.SaveNoiseFloor(cpu).ok());
  ASSERT_TRUE(store.SaveNoiseFloor(gpu, NoiseFloorKey("", "cuda:1")).ok());
  ASSERT_TRUE(store.SaveNoiseFloor(node_gpu, NoiseFloorKey("node-a", "cuda:0")).ok());
  EXPECT_TRUE(fs::exists(dir + "/noise_floors/@cuda_1.json"));
  EXPECT_EQ(store.NoiseFloorKeys(), (std::vector<std::string>{"@cuda_1", "node-a@cuda_0"}));
  EXPECT_EQ(store.LoadNoiseFloor()->job_id(), "job-1");
  EXPECT_EQ(store.LoadNoiseFloor("@cuda_1")->job_id(), "job-2");
  EXPECT_EQ(store.LoadNoiseFloor("node-a@cuda_0")->job_id(), "job-3");
  for (const char* bad : {"@cuda", "@cuda_x", "@../x", "a@b@cuda_0", "@cpu"})
    EXPECT_EQ(store.SaveNoiseFloor(gpu, bad).code(), absl::StatusCode::kInvalidArgument) << bad;
}

TEST(JobStore, ASlurmFrontKeepsItsJobsInSlurmRunningAcrossARestart) {
  const std::string dir = FreshDir("slurm_restart");
  {
    JobStore store(dir);
    ASSERT_TRUE(store.Open().ok());
    v1::Job in_slurm = MakeJob(1, v1::Job::running);
    in_slurm.set_slurm_job_id("77");
    ASSERT_TRUE(store.SaveJob(in_slurm).ok());
    ASSERT_TRUE(store.SaveJob(MakeJob(2, v1::Job::running)).ok());  // never taken by Slurm
  }
  JobStore front(dir);
  ASSERT_TRUE(front.Open().ok());
  JobStore::Loaded loaded = front.LoadAll("now", /*slurm_front=*/true);
  ASSERT_EQ(loaded.jobs.size(), 2u);
  EXPECT_EQ(loaded.jobs[0].state(), v1::Job::running);
  EXPECT_EQ(loaded.jobs[1].state(), v1::Job::interrupted);
  EXPECT_EQ(loaded.interrupted, std::vector<std::string>{"job-000002"});
}

TEST(JobStore, ACalibrationResultLoadsAndSaveResultRewritesIt) {
  JobStore store(FreshDir("calibration_result"));
  ASSERT_TRUE(store.Open().ok());
  ASSERT_TRUE(store.WriteSpec("job-000001", MakeJob(1, v1::Job::queued).spec()).ok());
  v1::JobResult result;
  result.mutable_calibration()->set_schema_version(1);
  result.mutable_calibration()->mutable_noise_floor()->set_pairs(3);
  ASSERT_TRUE(store.SaveResult("job-000001", result).ok());
  absl::StatusOr<v1::JobResult> loaded = store.LoadResult("job-000001");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->calibration().noise_floor().pairs(), 3);
  result.mutable_calibration()->set_schema_version(99);
  ASSERT_TRUE(store.SaveResult("job-000001", result).ok());
  EXPECT_EQ(store.LoadResult("job-000001").status().code(), absl::StatusCode::kDataLoss);
}

// A job finished by an older daemon has no summary: the load makes it from result.json and
// stores it; one whose result cannot be read stays without (a problem, never a failed load);
// jobs that have one, calibrations and unsucceeded jobs are not looked at.
// A measurement's result whose median is `median_s`.
v1::JobResult MeasuredResult(double median_s) {
  v1::JobResult result;
  *result.mutable_report() = FakeReport("measurement");
  result.mutable_report()->mutable_timing()->mutable_summary()->set_median_s(median_s);
  return result;
}

TEST(JobStore, ASucceededJobWithoutSummaryGetsOneFromItsResultAtLoad) {
  const std::string dir = FreshDir("summary_backfill");
  {
    JobStore store(dir);
    ASSERT_TRUE(store.Open().ok());
    v1::JobResult result = MeasuredResult(0.0025);
    result.mutable_report()->set_model("resnet18");
    ASSERT_TRUE(store.SaveJob(MakeJob(1, v1::Job::succeeded)).ok());
    ASSERT_TRUE(store.SaveResult(JobStore::JobId(1), result).ok());
    ASSERT_TRUE(store.SaveJob(MakeJob(2, v1::Job::succeeded)).ok());
    std::ofstream(store.ResultPath(JobStore::JobId(2))) << "{\"report\": ";
    v1::Job summarized = MakeJob(3, v1::Job::succeeded);  // no result.json: must not be read
    summarized.mutable_summary()->set_run("measured");
    summarized.mutable_summary()->mutable_latency()->set_median_s(0.5);
    ASSERT_TRUE(store.SaveJob(summarized).ok());
    v1::Job calibration = MakeJob(4, v1::Job::succeeded);
    calibration.mutable_spec()->mutable_calibrate();
    ASSERT_TRUE(store.SaveJob(calibration).ok());
    ASSERT_TRUE(store.SaveJob(MakeJob(5, v1::Job::failed)).ok());
  }
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  const JobStore::Loaded loaded = store.LoadAll("2026-12-01T10:00:00.000Z");
  ASSERT_EQ(loaded.jobs.size(), 5u);
  EXPECT_EQ(loaded.summarized, std::vector<std::string>{"job-000001"});
  ASSERT_EQ(loaded.problems.size(), 1u) << absl::StrJoin(loaded.problems, "\n");
  EXPECT_NE(loaded.problems[0].find("job-000002: succeeded, but its history summary cannot be made"), std::string::npos)
      << loaded.problems[0];
  EXPECT_EQ(loaded.jobs[0].summary().run(), "measured");
  EXPECT_EQ(loaded.jobs[0].summary().latency().median_s(), 0.0025);
  EXPECT_EQ(loaded.jobs[0].summary().model(), "resnet18");
  EXPECT_EQ(loaded.jobs[0].summary().device(), "cpu");
  EXPECT_FALSE(loaded.jobs[1].has_summary());
  EXPECT_EQ(loaded.jobs[2].summary().latency().median_s(), 0.5);
  EXPECT_FALSE(loaded.jobs[3].has_summary());
  EXPECT_FALSE(loaded.jobs[4].has_summary());
  v1::Job stored;  // rewritten: the next start need not read the result again
  ASSERT_TRUE(LoadJsonStrict(store.JobDir("job-000001") + "/job.json", &stored).ok());
  EXPECT_EQ(stored.summary().latency().median_s(), 0.0025);
}

// The jobs.cache of `dir`'s state folder, decoded (the test fails when it is absent or damaged).
std::map<std::string, CachedRecord> CacheOf(const std::string& dir) {
  absl::StatusOr<std::string> bytes = ReadFile(dir + "/jobs.cache");
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return {};
  absl::StatusOr<std::map<std::string, CachedRecord>> records = DecodeJobCache(*bytes);
  EXPECT_TRUE(records.ok()) << records.status();
  return records.ok() ? *records : std::map<std::string, CachedRecord>{};
}

// Loads `dir` with a store of its own (released after), as a daemon start does.
JobStore::Loaded LoadWithNewStore(const std::string& dir) {
  JobStore store(dir);
  EXPECT_TRUE(store.Open().ok());
  return store.LoadAll("2026-12-01T10:00:00.000Z");
}

std::vector<std::string> SerializedJobs(const JobStore::Loaded& loaded) {
  std::vector<std::string> out;
  for (const v1::Job& job : loaded.jobs) out.push_back(ToJson(job));
  return out;
}

// Four finished jobs (one with an error, one cancelled while queued) and one queued.
void SaveFiveJobs(const std::string& dir) {
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  v1::Job succeeded = MakeJob(1, v1::Job::succeeded);
  succeeded.mutable_summary()->mutable_latency()->set_median_s(0.004);
  ASSERT_TRUE(store.SaveJob(succeeded).ok());
  v1::Job failed = MakeJob(2, v1::Job::failed);
  failed.set_error("worker exited with status 3");
  ASSERT_TRUE(store.SaveJob(failed).ok());
  ASSERT_TRUE(store.SaveJob(MakeJob(3, v1::Job::cancelled)).ok());
  ASSERT_TRUE(store.SaveJob(MakeJob(4, v1::Job::interrupted)).ok());
  v1::Job queued = MakeJob(5, v1::Job::queued);
  queued.set_queue_position(1);
  ASSERT_TRUE(store.SaveJob(queued).ok());
}

TEST(JobStoreCache, TheSecondLoadTakesFinishedRecordsFromTheCacheAndGivesTheSameJobs) {
  const std::string dir = FreshDir("cache_used");
  SaveFiveJobs(dir);
  const JobStore::Loaded first = LoadWithNewStore(dir);
  EXPECT_TRUE(first.problems.empty()) << absl::StrJoin(first.problems, "\n");
  EXPECT_EQ(first.from_json, 5);
  EXPECT_EQ(first.from_cache, 0);
  EXPECT_EQ(CacheOf(dir).size(), 4u) << "the finished jobs, not the queued one";
  const JobStore::Loaded second = LoadWithNewStore(dir);
  EXPECT_TRUE(second.problems.empty()) << absl::StrJoin(second.problems, "\n");
  EXPECT_EQ(second.from_cache, 4);
  EXPECT_EQ(second.from_json, 1);
  EXPECT_EQ(SerializedJobs(second), SerializedJobs(first));
  EXPECT_EQ(second.last_number, 5);
}

TEST(JobStoreCache, AChangedRecordIsReadFromItsJsonEvenWithItsSizeAndMtimeKept) {
  const std::string dir = FreshDir("cache_stale");
  SaveFiveJobs(dir);
  (void)LoadWithNewStore(dir);  // builds the cache
  // Rewritten by another program (a new file, as an atomic writer makes it).
  v1::Job edited = MakeJob(1, v1::Job::succeeded);
  edited.mutable_summary()->mutable_latency()->set_median_s(0.004);
  edited.mutable_spec()->set_label("renamed by hand");
  ASSERT_TRUE(WriteFileAtomic(dir + "/jobs/job-000001/job.json", ToJson(edited)).ok());
  // Edited in place: same size (one letter changed), mtime put back.
  const std::string path2 = dir + "/jobs/job-000002/job.json";
  struct stat before;
  ASSERT_EQ(::stat(path2.c_str(), &before), 0);
  absl::StatusOr<std::string> text = ReadFile(path2);
  ASSERT_TRUE(text.ok());
  const size_t at = text->find("status 3");
  ASSERT_NE(at, std::string::npos);
  (*text)[at + 7] = '4';
  {
    std::fstream file(path2, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(0);
    file.write(text->data(), static_cast<std::streamsize>(text->size()));
  }
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, path2.c_str(), times, 0), 0);

  const JobStore::Loaded loaded = LoadWithNewStore(dir);
  EXPECT_TRUE(loaded.problems.empty()) << absl::StrJoin(loaded.problems, "\n");
  EXPECT_EQ(loaded.from_cache, 2);
  EXPECT_EQ(loaded.from_json, 3);
  ASSERT_EQ(loaded.jobs.size(), 5u);
  EXPECT_EQ(loaded.jobs[0].spec().label(), "renamed by hand");
  EXPECT_EQ(loaded.jobs[1].error(), "worker exited with status 4");
  // The cache now holds the new records: the next load takes all four from it.
  const JobStore::Loaded again = LoadWithNewStore(dir);
  EXPECT_EQ(again.from_cache, 4);
  EXPECT_EQ(again.jobs[0].spec().label(), "renamed by hand");
}

TEST(JobStoreCache, ADamagedCacheIsReportedAndIgnoredAndEveryJobStillLoads) {
  const std::string dir = FreshDir("cache_damaged");
  SaveFiveJobs(dir);
  const JobStore::Loaded first = LoadWithNewStore(dir);
  absl::StatusOr<std::string> bytes = ReadFile(dir + "/jobs.cache");
  ASSERT_TRUE(bytes.ok());
  std::string flipped = *bytes;
  flipped[flipped.size() - 5] ^= 0x40;
  for (const std::string& damaged : {bytes->substr(0, bytes->size() / 2), flipped, std::string("{}")}) {
    ASSERT_TRUE(WriteFileAtomic(dir + "/jobs.cache", damaged).ok());
    const JobStore::Loaded loaded = LoadWithNewStore(dir);
    ASSERT_EQ(loaded.problems.size(), 1u) << absl::StrJoin(loaded.problems, "\n");
    EXPECT_NE(loaded.problems[0].find(dir + "/jobs.cache: "), std::string::npos) << loaded.problems[0];
    EXPECT_NE(loaded.problems[0].find("ignored"), std::string::npos) << loaded.problems[0];
    EXPECT_EQ(loaded.from_cache, 0);
    EXPECT_EQ(SerializedJobs(loaded), SerializedJobs(first));
    EXPECT_EQ(CacheOf(dir).size(), 4u) << "written again";
  }
  // Another schema's cache is no problem: ignored and replaced.
  bytes = ReadFile(dir + "/jobs.cache");
  ASSERT_TRUE(bytes.ok());
  (*bytes)[std::string("torchscan jobs.cache 1\n").size()] ^= 1;
  ASSERT_TRUE(WriteFileAtomic(dir + "/jobs.cache", *bytes).ok());
  const JobStore::Loaded other_schema = LoadWithNewStore(dir);
  EXPECT_TRUE(other_schema.problems.empty()) << absl::StrJoin(other_schema.problems, "\n");
  EXPECT_EQ(other_schema.from_cache, 0);
  EXPECT_EQ(LoadWithNewStore(dir).from_cache, 4);
}

TEST(JobStoreCache, ARunningJobFromTheCacheIsStillInterrupted) {
  const std::string dir = FreshDir("cache_running");
  {
    JobStore store(dir);
    ASSERT_TRUE(store.Open().ok());
    v1::Job running = MakeJob(1, v1::Job::running);
    running.set_worker_pid(4242);
    ASSERT_TRUE(store.SaveJob(running).ok());
    // A cache entry for it (the store writes none for a running job, an older daemon might).
    const std::optional<RecordIdentity> identity = IdentityOf(dir + "/jobs/job-000001/job.json");
    ASSERT_TRUE(identity.has_value());
    ASSERT_TRUE(WriteFileAtomic(dir + "/jobs.cache",
                                EncodeJobCache({{running.id(), CachedRecord{*identity, running.SerializeAsString()}}}))
                    .ok());
  }
  const JobStore::Loaded loaded = LoadWithNewStore(dir);
  EXPECT_EQ(loaded.from_cache, 1);
  ASSERT_EQ(loaded.jobs.size(), 1u);
  EXPECT_EQ(loaded.jobs[0].state(), v1::Job::interrupted);
  EXPECT_EQ(loaded.jobs[0].worker_pid(), 0);
  EXPECT_EQ(loaded.interrupted, std::vector<std::string>{"job-000001"});
  v1::Job stored;
  ASSERT_TRUE(LoadJsonStrict(dir + "/jobs/job-000001/job.json", &stored).ok());
  EXPECT_EQ(stored.state(), v1::Job::interrupted);
  // The rewritten record is cached as rewritten.
  const JobStore::Loaded again = LoadWithNewStore(dir);
  EXPECT_EQ(again.from_cache, 1);
  EXPECT_TRUE(again.interrupted.empty());
  EXPECT_EQ(again.jobs[0].state(), v1::Job::interrupted);
}

TEST(JobStoreCache, TheSummaryIsBackFilledOnceAndThenComesFromTheCache) {
  const std::string dir = FreshDir("cache_backfill");
  {
    JobStore store(dir);
    ASSERT_TRUE(store.Open().ok());
    ASSERT_TRUE(store.SaveJob(MakeJob(1, v1::Job::succeeded)).ok());
    ASSERT_TRUE(store.SaveResult(JobStore::JobId(1), MeasuredResult(0.0025)).ok());
  }
  const JobStore::Loaded first = LoadWithNewStore(dir);
  EXPECT_EQ(first.summarized, std::vector<std::string>{"job-000001"});
  const JobStore::Loaded second = LoadWithNewStore(dir);
  EXPECT_TRUE(second.summarized.empty());
  EXPECT_EQ(second.from_cache, 1);
  ASSERT_EQ(second.jobs.size(), 1u);
  EXPECT_EQ(second.jobs[0].summary().latency().median_s(), 0.0025);
}

TEST(JobStoreCache, SaveCacheKeepsOnlyFinishedJobsAsStored) {
  const std::string dir = FreshDir("cache_save");
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  ASSERT_TRUE(store.SaveCache().ok());
  EXPECT_FALSE(fs::exists(dir + "/jobs.cache")) << "nothing is written before a load";
  (void)store.LoadAll("now");
  for (int i = 1; i <= 3; ++i)
    ASSERT_TRUE(store.SaveJob(MakeJob(i, i == 3 ? v1::Job::running : v1::Job::succeeded)).ok());
  ASSERT_TRUE(store.SaveCache().ok());
  std::map<std::string, CachedRecord> cache = CacheOf(dir);
  ASSERT_EQ(cache.size(), 2u) << "the running job is not cached";
  EXPECT_EQ(cache.count(JobStore::JobId(3)), 0u);
  // Nothing stored since: not written again (a daemon's shutdown after a quiet run).
  const std::optional<RecordIdentity> written = IdentityOf(dir + "/jobs.cache");
  ASSERT_TRUE(store.SaveCache().ok());
  EXPECT_TRUE(IdentityOf(dir + "/jobs.cache") == written);
  // A later write keeps the old entries and adds the new record; a record stored again
  // replaces its entry.
  v1::Job second = MakeJob(2, v1::Job::succeeded);
  second.set_error("stored again");
  ASSERT_TRUE(store.SaveJob(second).ok());
  ASSERT_TRUE(store.SaveJob(MakeJob(3, v1::Job::failed)).ok());
  ASSERT_TRUE(store.SaveCache().ok());
  cache = CacheOf(dir);
  ASSERT_EQ(cache.size(), 3u);
  v1::Job cached;
  ASSERT_TRUE(cached.ParseFromString(cache.at(JobStore::JobId(2)).job));
  EXPECT_EQ(cached.error(), "stored again");
  EXPECT_TRUE(cache.at(JobStore::JobId(2)).identity == *IdentityOf(dir + "/jobs/job-000002/job.json"));
}

TEST(JobStoreCache, ANewStoreTakesEveryRecordSavedInTheCacheFromIt) {
  const std::string dir = FreshDir("cache_taken");
  {
    JobStore store(dir);
    ASSERT_TRUE(store.Open().ok());
    (void)store.LoadAll("now");
    ASSERT_TRUE(store.SaveJob(MakeJob(1, v1::Job::succeeded)).ok());
    ASSERT_TRUE(store.SaveCache().ok());
    ASSERT_TRUE(store.SaveJob(MakeJob(2, v1::Job::failed)).ok());
    ASSERT_TRUE(store.SaveCache().ok());
  }
  const JobStore::Loaded loaded = LoadWithNewStore(dir);
  EXPECT_EQ(loaded.from_cache, 2);
  EXPECT_EQ(loaded.from_json, 0);
}

TEST(JobStoreCache, AnEntryWhoseJobJsonChangedIsLeftOut) {
  const std::string dir = FreshDir("cache_edited");
  {
    JobStore store(dir);
    ASSERT_TRUE(store.Open().ok());
    (void)store.LoadAll("now");
    ASSERT_TRUE(store.SaveJob(MakeJob(1, v1::Job::succeeded)).ok());
    ASSERT_TRUE(store.SaveCache().ok());
    // Rewritten behind the store's back (a new inode): its entry no longer stands for it.
    v1::Job edited = MakeJob(1, v1::Job::succeeded);
    edited.set_error("edited by hand");
    ASSERT_TRUE(SaveJson(edited, dir + "/jobs/job-000001/job.json", 0600).ok());
    ASSERT_TRUE(store.SaveJob(MakeJob(2, v1::Job::succeeded)).ok());
    ASSERT_TRUE(store.SaveCache().ok());
  }
  const JobStore::Loaded loaded = LoadWithNewStore(dir);
  EXPECT_EQ(loaded.from_cache, 1);
  EXPECT_EQ(loaded.from_json, 1);
  ASSERT_EQ(loaded.jobs.size(), 2u);
  EXPECT_EQ(loaded.jobs[0].error(), "edited by hand") << "a changed job.json is parsed, never taken from the cache";
}

TEST(JobStoreCache, LoadJobReadsACurrentEntryFromTheCacheAndTheOthersFromTheirJson) {
  const std::string dir = FreshDir("load_from_cache");
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  (void)store.LoadAll("now");
  v1::Job first = MakeJob(1, v1::Job::succeeded);
  first.set_error("cached");
  ASSERT_TRUE(store.SaveJob(first).ok());
  ASSERT_TRUE(store.SaveJob(MakeJob(2, v1::Job::succeeded)).ok());
  ASSERT_TRUE(store.SaveCache().ok());
  v1::Job third = MakeJob(3, v1::Job::failed);
  third.set_error("stored after the cache");
  ASSERT_TRUE(store.SaveJob(third).ok());
  // With job.json gone, only the cache can give job 1: proof that it is read from there.
  fs::remove(dir + "/jobs/job-000001/job.json");
  absl::StatusOr<v1::Job> one = store.LoadJob(JobStore::JobId(1));
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->error(), "cached");
  absl::StatusOr<v1::Job> three = store.LoadJob(JobStore::JobId(3));
  ASSERT_TRUE(three.ok()) << three.status();
  EXPECT_EQ(three->error(), "stored after the cache");
  // Stored again: its cache entry is no longer its record, so the JSON is read.
  v1::Job second = MakeJob(2, v1::Job::succeeded);
  second.set_error("stored again");
  ASSERT_TRUE(store.SaveJob(second).ok());
  EXPECT_EQ(store.LoadJob(JobStore::JobId(2))->error(), "stored again");
}

TEST(JobStoreCache, ANewStoreReadsRecordsAgainFromTheCacheItLoaded) {
  const std::string dir = FreshDir("load_from_loaded_cache");
  {
    JobStore store(dir);
    ASSERT_TRUE(store.Open().ok());
    (void)store.LoadAll("now");
    for (int i = 1; i <= 3; ++i) ASSERT_TRUE(store.SaveJob(MakeJob(i, v1::Job::succeeded)).ok());
    ASSERT_TRUE(store.SaveCache().ok());
  }
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  EXPECT_EQ(store.LoadAll("now").from_cache, 3);
  fs::remove(dir + "/jobs/job-000002/job.json");
  absl::StatusOr<v1::Job> two = store.LoadJob(JobStore::JobId(2));
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->id(), "job-000002");
}

TEST(JobStore, LoadJobReadsTheRecordAgainAndNamesTheFileWhenItCannot) {
  const std::string dir = FreshDir("load_job");
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  ASSERT_TRUE(store.SaveJob(MakeJob(1, v1::Job::succeeded)).ok());
  absl::StatusOr<v1::Job> job = store.LoadJob(JobStore::JobId(1));
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->state(), v1::Job::succeeded);
  const absl::StatusOr<v1::Job> missing = store.LoadJob(JobStore::JobId(2));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(missing.status().message().find("job-000002/job.json"), std::string::npos) << missing.status();
  // Another job's record in this folder.
  ASSERT_TRUE(SaveJson(MakeJob(3, v1::Job::succeeded), dir + "/jobs/job-000001/job.json", 0600).ok());
  const absl::StatusOr<v1::Job> other = store.LoadJob(JobStore::JobId(1));
  EXPECT_EQ(other.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(other.status().message().find("does not match"), std::string::npos) << other.status();
}

// kill -9 while the cache is written leaves the old one or the new one, whole.
TEST(JobStoreCache, KillDuringACacheWriteLeavesAWholeCache) {
  const std::string dir = FreshDir("cache_kill");
  JobStore store(dir);
  ASSERT_TRUE(store.Open().ok());
  (void)store.LoadAll("now");
  for (int i = 1; i <= 300; ++i) {
    v1::Job job = MakeJob(i, v1::Job::succeeded);
    job.set_error(std::string(2000, 'x'));
    ASSERT_TRUE(store.SaveJob(job).ok());
  }
  const v1::Job first = MakeJob(1, v1::Job::succeeded);
  int whole = 0;
  for (int round = 0; round < 20; ++round) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (int i = 0;; ++i) {
        // Something new to write: a record stored again, or 0 to 2 new ones.
        (void)store.SaveJob(first);
        for (int extra = 0; extra < i % 3; ++extra)
          (void)store.SaveJob(MakeJob(301 + (i * 3 + extra) % 60, v1::Job::failed));
        (void)store.SaveCache();
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + 7 * round));
    // The last round waits for a first whole cache, should slow fsyncs have kept every
    // earlier round from finishing one (up to 10 s), so that the test always checks one.
    for (int i = 0; round == 19 && i < 1000 && !fs::exists(dir + "/jobs.cache"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (!fs::exists(dir + "/jobs.cache")) continue;
    const size_t entries = CacheOf(dir).size();  // fails the test when torn
    EXPECT_GE(entries, 300u);
    EXPECT_LE(entries, 360u);
    ++whole;
  }
  EXPECT_GT(whole, 0) << "no cache was ever written: the test proved nothing";
}

}  // namespace
}  // namespace torchscan::daemon
