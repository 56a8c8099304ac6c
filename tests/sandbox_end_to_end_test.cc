// Hostile modules against a shared torchscand with --sandbox namespaces (issue 24), with real
// processes and modules saved from Python (tests/python/make_hostile_models.py): one reads
// the first bytes of a file and fails with them in its message (a job's error goes back to its
// submitter), one maps a file shared and overwrites its first bytes. Targets: another job's
// uploaded spec.json and its result, the daemon's token file and TLS key, /etc/shadow and a file in root's
// home. Each must fail to see or change its target, inside its own job, with the victim's files
// byte-identical and the daemon serving. The same reader against an unsandboxed daemon shows
// the threat (and that this test can fail).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "tests/access_fixtures.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

namespace fs = std::filesystem;

struct Target {
  std::string name;
  std::string path;
};

// Makes the modules reading and writing each target, in `dir`.
void MakeHostileModules(const std::string& dir, const std::vector<Target>& targets) {
  std::vector<std::string> args = {Runfile("tests/python/make_hostile_models.py"), dir};
  for (const Target& t : targets) args.push_back(t.name + "=" + t.path);
  const CommandResult made = Run(e2e::ProjectPython(), args, 180);
  ASSERT_EQ(made.exit_code, 0)
      << "tests/python/make_hostile_models.py needs the project environment's torch (scripts/setup.sh): " << made.err;
}

// Submits `module` (uploaded) as a measurement; returns the client's result.
CommandResult MeasureModule(const TestDaemon& d, const std::string& module) {
  return d.Client({"measure", "--torchscript", module, "--input", "4x8", "--min-run-time", "0.01"}, 180);
}

// The first job: user A's measurement of a module, uploaded; its folder is the victim's.
std::string VictimJob(const TestDaemon& d, const std::string& models) {
  const CommandResult r =
      d.Client({"measure", "--torchscript", models + "/mlp.pt", "--input", "64x256", "--min-run-time", "0.01"}, 180);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return d.state_dir() + "/jobs/job-000001";
}

class SandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    models_ = TempDir("sandbox_models");
    const CommandResult made = e2e::Run(e2e::ProjectPython(), {Runfile("tests/python/make_models.py"), models_}, 180);
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  std::string models_;
};

TEST_F(SandboxTest, HostileModulesSeeAndChangeNothingOutsideTheirJob) {
  Placement placement = OpenPlacement("sandbox");
  const std::string token_file = fs::path(placement.state_dir).parent_path().string() + "/tokens";
  WriteFile(token_file, "root sandbox-test-token-0123456789\n", 0600);
  const std::string shared = TempDir("sandbox_shared");
  fs::copy_file(models_ + "/mlp.pt", shared + "/mlp.pt");
  // The TLS key readable by the workers' user, as a daemon's own key is to workers that run as
  // the daemon's user (an unprivileged daemon): only the sandbox keeps it from them.
  const std::string open_dir = fs::path(placement.state_dir).parent_path().string();
  fs::create_directories(open_dir + "/pki");
  const Pki pki = MakePki(open_dir + "/pki");
  ASSERT_EQ(::chmod(pki.server_key.c_str(), 0644), 0);
  TestDaemon d(placement.state_dir,
               With(placement.flags, {"--sandbox", "namespaces", "--token-file", token_file, "--share", shared,
                                      "--listen", "127.0.0.1:" + std::to_string(FreePort()), "--tls-cert",
                                      pki.server_cert, "--tls-key", pki.server_key}));
  const std::string victim = VictimJob(d, models_);
  ASSERT_TRUE(fs::exists(victim + "/spec.binpb"));
  const std::string home_secret = "/root/torchscan-sandbox-secret-" + std::to_string(::getpid());
  if (::geteuid() == 0) WriteFile(home_secret, "HOME SECRET\n", 0644);

  std::vector<Target> targets = {{"spec", victim + "/spec.binpb"},
                                 {"result", victim + "/result.json"},
                                 {"token", token_file},
                                 {"tls_key", pki.server_key},
                                 {"shadow", "/etc/shadow"}};
  if (::geteuid() == 0) targets.push_back({"home", home_secret});
  const std::string hostile = TempDir("hostile_models");
  MakeHostileModules(hostile, targets);
  std::vector<std::string> before;
  for (const Target& t : targets) before.push_back(Slurp(t.path));

  int contained = 0;
  for (const Target& t : targets) {
    const CommandResult read = MeasureModule(d, hostile + "/read_" + t.name + ".pt");
    EXPECT_NE(read.exit_code, 0) << t.name;
    EXPECT_FALSE(absl::StrContains(read.err, "LEAKED")) << t.name << " was read: " << read.err;
    // A path outside the job does not exist there (shadow: an empty file in its place).
    if (t.name != "shadow") {
      EXPECT_TRUE(absl::StrContains(read.err, "No such file or directory")) << read.err;
    }
    const CommandResult write = MeasureModule(d, hostile + "/write_" + t.name + ".pt");
    EXPECT_NE(write.exit_code, 0) << t.name << " was mapped for writing: " << write.out;
    contained += read.exit_code != 0 && !absl::StrContains(read.err, "LEAKED");
    contained += write.exit_code != 0;
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    // /etc/shadow is the machine's: other tests beside this one add and remove users (useradd
    // rewrites it), so only what a writer would change is compared there, its first 4 bytes
    // (tests/python/make_hostile_models.py zeroes them).
    const bool machines = targets[i].name == "shadow";
    EXPECT_EQ(machines ? Slurp(targets[i].path).substr(0, 4) : Slurp(targets[i].path),
              machines ? before[i].substr(0, 4) : before[i])
        << targets[i].name << " changed";
  }
  const int cases = 2 * static_cast<int>(targets.size());  // a reader and a writer per target
  std::printf("sandbox: %d of %d hostile cases contained\n", contained, cases);
  EXPECT_EQ(contained, cases);
  // README.md states the count (as root, where the home target is made); it must be the count run.
  if (::geteuid() == 0) {
    std::smatch m;
    const std::string readme = Slurp(Runfile("README.md"));
    ASSERT_TRUE(std::regex_search(readme, m, std::regex(R"(`//tests:sandbox_end_to_end_test`\s+\((\d+)\s+hostile)")))
        << "README.md does not say \"`//tests:sandbox_end_to_end_test` (N hostile cases\"";
    EXPECT_EQ(std::stoi(m[1].str()), cases) << "README.md states another count than the test ran";
  }

  // The daemon serves on, and a job reads its own files: a plain measurement succeeds.
  const CommandResult plain =
      d.Client({"measure", "--torchscript", models_ + "/mlp.pt", "--input", "64x256", "--min-run-time", "0.01"}, 180);
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  // Paths on the daemon's machine: a shared one is read; another is refused at submission.
  const CommandResult by_path = d.Client(
      {"measure", "--torchscript", shared + "/mlp.pt", "--input", "64x256", "--min-run-time", "0.01", "--daemon-path"},
      180);
  EXPECT_EQ(by_path.exit_code, 0) << by_path.err;
  const CommandResult unshared = d.Client(
      {"measure", "--torchscript", models_ + "/mlp.pt", "--input", "64x256", "--min-run-time", "0.01", "--daemon-path"},
      180);
  EXPECT_NE(unshared.exit_code, 0);
  for (const std::string& part : {std::string("spec.measure.workload.model.torchscript.path"),
                                  "\"" + models_ + "/mlp.pt\" is not shared with this daemon's sandboxed jobs",
                                  std::string("(torchscand --share)")})
    EXPECT_TRUE(absl::StrContains(unshared.err, part)) << part << " in " << unshared.err;
  const CommandResult info = d.Client({"info"});
  EXPECT_TRUE(absl::StrContains(info.out, "sandbox   namespaces")) << info.out;
  // Sandboxed jobs still start on the warm spare worker, sandboxed with a folder of its own.
  if (::geteuid() == 0) {
    const std::string record = Slurp(victim + "/job.json");
    EXPECT_TRUE(absl::StrContains(record, "\"worker\": \"warm spare\"")) << record;
  }
  if (::geteuid() == 0) fs::remove(home_secret);
}

// Without the sandbox a job can read what the worker's user can: here a file a user left
// readable by all, which the same reader carries out in its error (the threat the sandbox
// removes, and proof that the test above can fail). Other jobs' folders are closed to it
// either way (0700, the daemon's).
TEST_F(SandboxTest, WithoutItAJobReadsWhatTheWorkersUserCan) {
  Placement placement = OpenPlacement("unsandboxed");
  TestDaemon d(placement.state_dir, With(placement.flags, {"--sandbox", "off"}));
  const std::string victim = VictimJob(d, models_);
  const std::string open_file = fs::path(placement.state_dir).parent_path().string() + "/notes.txt";
  WriteFile(open_file, "NOTES FOR ALL\n", 0644);
  const std::string hostile = TempDir("hostile_unsandboxed");
  MakeHostileModules(hostile, {{"notes", open_file}, {"spec", victim + "/spec.binpb"}});
  const CommandResult notes = MeasureModule(d, hostile + "/read_notes.pt");
  EXPECT_NE(notes.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(notes.err, "LEAKED 78 79 84 69 83")) << notes.err;  // "NOTES"
  if (::geteuid() == 0) {  // workers run as nobody: the job folder (root, 0700) is closed to them
    const CommandResult spec = MeasureModule(d, hostile + "/read_spec.pt");
    EXPECT_NE(spec.exit_code, 0);
    EXPECT_FALSE(absl::StrContains(spec.err, "LEAKED")) << spec.err;
    EXPECT_TRUE(absl::StrContains(spec.err, "Permission denied")) << spec.err;
  }
}

}  // namespace
}  // namespace torchscan::e2e
