// A calibration's pairs run in fresh torchscan-worker processes (the real worker binary):
// one process per pair, one after the other, each reaped before the next; a pair whose
// process fails or is killed ends the calibration with an error naming the pair, starts no
// later pair and leaves no process behind. Tiny pairs (5 rounds at 0.01 s); no timing
// verdict is asserted.
#include "worker/calibration_job.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"

namespace torchscan::worker {
namespace {

namespace fs = std::filesystem;

std::string Worker() { return std::string(std::getenv("TEST_SRCDIR")) + "/torchscan/worker/torchscan-worker"; }

std::string FreshDir(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

v1::JobSpec Calibrate(int pairs) {
  v1::JobSpec spec;
  spec.mutable_calibrate()->set_pairs(pairs);
  spec.mutable_calibrate()->set_rounds(5);
  spec.mutable_options()->set_min_run_time_s(0.01);
  return spec;
}

bool Alive(int pid) { return ::kill(pid, 0) == 0; }  // a zombie counts: reaped means gone

std::string ProgramOf(int pid) {
  std::string comm;
  std::getline(std::ifstream("/proc/" + std::to_string(pid) + "/comm"), comm);
  return comm;
}

struct Started {
  int pair = 0;
  int pid = 0;
  std::string program;  // /proc/PID/comm while it ran
};

struct Recorder {
  std::vector<Started> started;
  std::vector<std::string> phases;
  CalibrationRun Run(const std::string& dir) {
    CalibrationRun run;
    run.worker_path = Worker();
    run.job_dir = dir;
    run.on_phase = [this](const std::string& phase) { phases.push_back(phase); };
    run.on_pair_start = [this](int pair, int pid) { started.push_back({pair, pid, ProgramOf(pid)}); };
    return run;
  }
  bool Announced(const std::string& phase) const {
    return std::find(phases.begin(), phases.end(), phase) != phases.end();
  }
};

TEST(CalibrationJob, EachPairRunsInAFreshWorkerProcessOfItsOwn) {
  const std::string dir = FreshDir("fresh");
  Recorder rec;
  absl::StatusOr<v1::Calibration> c = RunCalibration(Calibrate(3), rec.Run(dir));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->pairs_size(), 3);
  EXPECT_EQ(c->noise_floor().pairs(), 3);
  EXPECT_EQ(c->noise_floor().rounds(), 5);
  EXPECT_NE(c->noise_floor().workload().find("linear"), std::string::npos) << c->noise_floor().workload();

  ASSERT_EQ(rec.started.size(), 3u);
  std::set<int> pids;
  for (size_t i = 0; i < rec.started.size(); ++i) {
    const Started& s = rec.started[i];
    EXPECT_EQ(s.pair, static_cast<int>(i) + 1);
    EXPECT_NE(s.pid, ::getpid());
    EXPECT_EQ(s.program, "torchscan-worke") << "pair " << s.pair << " ran " << s.program;  // comm: 15 characters
    EXPECT_FALSE(Alive(s.pid)) << "pair " << s.pair << "'s process was not reaped";
    pids.insert(s.pid);
  }
  EXPECT_EQ(pids.size(), 3u) << "a process ran more than one pair";
  for (const char* phase : {"pair 1/3: worker start", "pair 1/3: LibTorch load", "pair 2/3: timing baseline",
                            "pair 3/3: timing candidate", "pair 3/3: write result"})
    EXPECT_TRUE(rec.Announced(phase)) << phase;
  EXPECT_FALSE(absl::c_any_of(rec.phases, [](const std::string& p) { return absl::StrContains(p, "profile"); }));
  for (int i = 1; i <= 3; ++i) EXPECT_FALSE(fs::exists(dir + "/pair-" + std::to_string(i))) << "pair folder left";
}

TEST(CalibrationJob, AKilledPairIsAnErrorNamingItAndNoLaterPairStarts) {
  const std::string dir = FreshDir("killed");
  Recorder rec;
  CalibrationRun run = rec.Run(dir);
  run.on_pair_start = [&](int pair, int pid) {
    rec.started.push_back({pair, pid, ""});
    if (pair == 2) ::kill(pid, SIGKILL);
  };
  absl::StatusOr<v1::Calibration> c = RunCalibration(Calibrate(3), run);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "pair 2/3: worker killed by signal 9 (SIGKILL)") << c.status();
  ASSERT_EQ(rec.started.size(), 2u) << "pair 3 was started after pair 2 failed";
  for (const Started& s : rec.started) EXPECT_FALSE(Alive(s.pid)) << "pair " << s.pair << " left running";
  EXPECT_FALSE(fs::exists(dir + "/pair-2"));
}

TEST(CalibrationJob, APairWhoseWorkerFailsIsAnErrorNamingItWithTheWorkersReason) {
  const std::string dir = FreshDir("failing");
  v1::JobSpec spec = Calibrate(2);
  spec.mutable_calibrate()->mutable_workload()->mutable_model()->mutable_torchscript()->set_module_bytes(
      "not a TorchScript module");
  Recorder rec;
  absl::StatusOr<v1::Calibration> c = RunCalibration(spec, rec.Run(dir));
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::StartsWith(c.status().message(),
                               "pair 1/2: worker exited with status 3 (workload error): "
                               "torchscan-worker: "))
      << c.status();
  ASSERT_EQ(rec.started.size(), 1u);
  EXPECT_FALSE(Alive(rec.started[0].pid));
}

TEST(CalibrationJob, AWorkerThatCannotStartIsAnErrorNamingThePair) {
  Recorder rec;
  CalibrationRun run = rec.Run(FreshDir("missing"));
  run.worker_path = "/nonexistent/torchscan-worker";
  absl::StatusOr<v1::Calibration> c = RunCalibration(Calibrate(2), run);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::StartsWith(c.status().message(), "pair 1/2: cannot start worker /nonexistent/torchscan-worker"))
      << c.status();
  EXPECT_TRUE(rec.started.empty());
}

TEST(CalibrationJob, APairIsTheCompareJobOfTheWorkloadWithItself) {
  v1::JobSpec spec = Calibrate(4);
  spec.set_label("cal");
  spec.mutable_options()->set_rss(true);
  const v1::JobSpec pair = CalibrationPairSpec(spec);
  ASSERT_TRUE(pair.has_compare());
  EXPECT_EQ(pair.compare().baseline().model().builtin(), v1::ModelSpec::linear);
  EXPECT_EQ(pair.compare().candidate().SerializeAsString(), pair.compare().baseline().SerializeAsString());
  EXPECT_TRUE(pair.compare().check().skip());
  EXPECT_EQ(pair.compare().rounds(), 5);
  EXPECT_EQ(pair.options().min_run_time_s(), 0.01);
  EXPECT_TRUE(pair.options().skip_diagnostics());
  EXPECT_FALSE(pair.options().rss());
  EXPECT_EQ(pair.label(), "cal");
}

}  // namespace
}  // namespace torchscan::worker
