// The client's behaviour around a job, with real processes: where evidence goes (checked
// before submitting, ./torchscan-<job id>/ without --output), Ctrl-C on a private and on a
// resident daemon, a socket the user may not open, flags beside --job, TORCHSCAN_DAEMON, and
// the job's label in the evidence.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include <gtest/gtest.h>

#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kQuick = {"measure", "--model", "linear", "--min-run-time", "0.02"};
const std::vector<std::string> kLong = {"measure", "--model", "linear", "--min-run-time", "120"};

std::string Client() { return Runfile("client/torchscan-client"); }

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Pids of the processes (other than this one) whose command line mentions `text`.
std::vector<int> ProcessesMentioning(const std::string& text) {
  std::vector<int> pids;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos || std::stoi(name) == ::getpid()) continue;
    std::string cmdline = Slurp(entry.path().string() + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (Has(cmdline, text)) pids.push_back(std::stoi(name));
  }
  return pids;
}

// Waits (at most 20 s) until no process mentions `text`.
bool NoProcessMentions(const std::string& text) {
  for (int i = 0; i < 200; ++i) {
    if (ProcessesMentioning(text).empty()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::string Write(const std::string& path, const std::string& content) {
  std::ofstream(path) << content;
  return path;
}

TEST(ClientEndToEnd, CtrlCCancelsAPrivateDaemonsJobAndLeavesNothingBehind) {
  const std::string out = TempDir("private_interrupt") + "/out";
  Background client(Client(), With(kLong, {"--output", out}));
  ASSERT_TRUE(client.WaitForErr("running: timing")) << client.Err();
  std::smatch m;
  const std::string err = client.Err();
  ASSERT_TRUE(std::regex_search(err, m, std::regex(R"(submitted to unix:(/tmp/torchscan-client-\w+)/)"))) << err;
  const std::string folder = m[1].str();
  bool worker_seen = false;
  for (int pid : ProcessesMentioning(folder))
    worker_seen |= Has(Slurp("/proc/" + std::to_string(pid) + "/cmdline"), "torchscan-worker");
  ASSERT_TRUE(worker_seen) << "no worker of the private daemon in " << folder;

  ASSERT_EQ(::kill(client.pid(), SIGINT), 0);
  const CommandResult r = client.Wait(60);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_TRUE(Has(r.err, "torchscan-client: Ctrl-C: cancelling job job-000001")) << r.err;
  EXPECT_TRUE(Has(r.err, "[job-000001] cancelled")) << r.err;
  EXPECT_TRUE(Has(r.err, "the private daemon stops with this command")) << r.err;
  EXPECT_TRUE(NoProcessMentions(folder)) << "left running: the private daemon or its worker";
  EXPECT_FALSE(fs::exists(folder));
  EXPECT_FALSE(fs::exists(out));  // nothing written for a cancelled job
}

// Root writes anywhere, so --output passes the check and fails only when written: a private
// daemon's result, gone once the command ends, is then saved in a fresh /tmp folder.
TEST(ClientEndToEnd, APrivateDaemonsEvidenceThatCannotBeWrittenIsSavedElsewhere) {
  if (::geteuid() != 0) GTEST_SKIP() << "as another user the check refuses /proc before submitting";
  const CommandResult r = e2e::Run(Client(), With(kQuick, {"--output", "/proc/forbidden/x"}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex(R"(so it was saved in (/tmp/torchscan-job-000001-\w+) instead)")))
      << r.err;
  EXPECT_TRUE(Has(r.err, "job job-000001 succeeded, but its evidence could not be written: --output")) << r.err;
  EXPECT_TRUE(report::LoadReport(m[1].str() + "/report.json").ok());
  fs::remove_all(m[1].str());
}

TEST(ClientEndToEnd, CtrlCLeavesAResidentDaemonsJobRunningAndSaysHowToCancelIt) {
  TestDaemon d(TempDir("resident_interrupt"));
  Background first(Client(), With({"--daemon", d.address()}, kLong));
  ASSERT_TRUE(first.WaitForErr("running: timing")) << first.Err();
  const std::string id = SubmittedId(first.Err());
  ASSERT_EQ(::kill(first.pid(), SIGINT), 0);
  const CommandResult r = first.Wait(30);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_TRUE(Has(r.err, "Ctrl-C: job " + id + " keeps running on " + d.address())) << r.err;
  EXPECT_TRUE(Has(r.err, "`torchscan-client --daemon " + d.address() + " jobs cancel " + id + "`")) << r.err;
  EXPECT_TRUE(Has(r.err, "jobs fetch " + id + " --output DIR")) << r.err;
  EXPECT_EQ(ShowJob(d, id).state(), v1::Job::running);  // asked nothing, cancelled nothing

  // --cancel-on-interrupt cancels it (here while queued behind the first).
  Background second(Client(), With({"--daemon", d.address()}, With(kQuick, {"--cancel-on-interrupt"})));
  ASSERT_TRUE(second.WaitForErr("queued")) << second.Err();
  const std::string queued = SubmittedId(second.Err());
  ASSERT_EQ(::kill(second.pid(), SIGINT), 0);
  const CommandResult cancelled = second.Wait(30);
  EXPECT_EQ(cancelled.exit_code, 130) << cancelled.err;
  EXPECT_TRUE(Has(cancelled.err, "[" + queued + "] cancelled")) << cancelled.err;
  EXPECT_EQ(ShowJob(d, queued).state(), v1::Job::cancelled);

  EXPECT_EQ(d.Client({"jobs", "cancel", id}).exit_code, 0);
}

// The client copied where `nobody` can run it (the runfiles live under /root, closed).
std::string OpenClientCopy(const std::string& name) {
  const std::string dir = "/tmp/torchscan-clientux-" + name + "-" + std::to_string(::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0755);
  fs::copy_file(Client(), dir + "/torchscan-client");
  return dir + "/torchscan-client";
}

TEST(ClientEndToEnd, ASocketTheUserMayNotOpenIsExit5NamingItsGroup) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  TestDaemon d(TempDir("socket_group"), {"--socket-group", "daemon"});
  const std::string socket = d.address().substr(5);
  ::chmod(fs::path(socket).parent_path().c_str(), 0755);  // the folder open, the socket 0660 root:daemon
  const std::string client = OpenClientCopy("socket");
  const CommandResult refused = e2e::Run("/usr/bin/setpriv", {"--reuid=65534", "--regid=65534", "--clear-groups",
                                                              client, "--daemon", d.address(), "jobs", "list"});
  EXPECT_EQ(refused.exit_code, 5) << refused.err;
  EXPECT_TRUE(Has(refused.err, "permission denied on " + d.address() +
                                   ": the socket belongs to user root and group "
                                   "daemon with mode 0660"))
      << refused.err;
  EXPECT_TRUE(Has(refused.err, "sudo usermod -aG daemon nobody")) << refused.err;
  // The fix it names works: a member of the group gets in.
  const CommandResult member = e2e::Run("/usr/bin/setpriv", {"--reuid=65534", "--regid=65534", "--groups=1", client,
                                                             "--daemon", d.address(), "jobs", "list"});
  EXPECT_EQ(member.exit_code, 0) << member.err;
  fs::remove_all(fs::path(client).parent_path());
}

TEST(ClientEndToEnd, EvidenceGoesToTorchscanJobIdWithoutOutputAndOutputIsCheckedBeforeSubmitting) {
  TestDaemon d(TempDir("output_rules"));
  const CommandResult first = d.Client(With(kQuick, {"--label", "mlp v1"}));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string id = SubmittedId(first.err);
  EXPECT_TRUE(Has(first.err, "[" + id + "] wrote ./torchscan-" + id + "/report.json and its .html")) << first.err;
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(WorkingDir() + "/torchscan-" + id + "/report.json");
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->label(), "mlp v1");
  EXPECT_EQ(report->model(), "linear");
  EXPECT_TRUE(
      Has(Slurp(WorkingDir() + "/torchscan-" + id + "/report.html"), "<title>TorchScan: mlp v1 (linear)</title>"));

  const size_t jobs = ListJobs(d).size();
  const std::string dir = TempDir("output_rules_files");
  const CommandResult file = d.Client(With(kQuick, {"--output", Write(dir + "/afile", "x")}));
  EXPECT_EQ(file.exit_code, 2) << file.err;
  EXPECT_TRUE(Has(file.err, "--output: " + dir + "/afile is a file, not a folder")) << file.err;
  const std::string earlier = WorkingDir() + "/torchscan-" + id;
  const CommandResult overwrite = d.Client(With(kQuick, {"--output", earlier}));
  EXPECT_EQ(overwrite.exit_code, 2) << overwrite.err;
  EXPECT_TRUE(Has(overwrite.err, earlier + "/report.json already exists")) << overwrite.err;
  EXPECT_TRUE(Has(overwrite.err, "add --force")) << overwrite.err;
  EXPECT_EQ(ListJobs(d).size(), jobs) << "a refused --output still submitted a job";

  const CommandResult forced = d.Client(With(kQuick, {"--output", earlier, "--force"}));
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  absl::StatusOr<v1::BenchmarkReport> replaced = report::LoadReport(earlier + "/report.json");
  ASSERT_TRUE(replaced.ok());
  EXPECT_EQ(replaced->label(), "");  // the second run's

  // Two labelled runs compared from their saved reports: titled by their labels, not
  // "measurement -> measurement".
  const std::string v1_dir = TempDir("output_rules_v1"), v2_dir = TempDir("output_rules_v2");
  ASSERT_EQ(d.Client(With(kQuick, {"--label", "mlp v1", "--output", v1_dir})).exit_code, 0);
  ASSERT_EQ(d.Client(With(kQuick, {"--label", "mlp v2", "--output", v2_dir})).exit_code, 0);
  const CommandResult compared = d.Client({"compare-reports", v1_dir + "/report.json", v2_dir + "/report.json"});
  EXPECT_EQ(compared.exit_code, 0) << compared.err;
  EXPECT_EQ(compared.out.rfind("TorchScan comparison: mlp v1 (linear) \u2192 mlp v2 (linear)\n", 0), 0u)
      << compared.out;
}

TEST(ClientEndToEnd, FlagsBesideJobOverrideTheFileAndAreListedOrAreRefused) {
  TestDaemon d(TempDir("job_flags"));
  const std::string dir = TempDir("job_flags_files");
  const std::string job = Write(
      dir + "/mlp_job.json",
      R"({"label": "from file", "measure": {"workload": {"model": {"builtin": "linear"}}}, "options": {"min_run_time_s": 0.02}})");
  const CommandResult r =
      d.Client({"measure", "--min-run-time", "0.03", "--label", "from flags", "--job", job, "--output", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.err, job + ": overridden by the command line: min_run_time_s 0.02 -> 0.03 (--min-run-time)"))
      << r.err;
  EXPECT_TRUE(Has(r.err, "label \"from file\" -> \"from flags\" (--label)")) << r.err;
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(dir + "/out/report.json");
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->settings().timing().min_run_time_s(), 0.03);
  EXPECT_EQ(report->label(), "from flags");

  // The issue's command: --model beside --job is refused, and nothing is submitted.
  const size_t jobs = ListJobs(d).size();
  const CommandResult refused =
      d.Client({"measure", "--model", "resnet18", "--min-run-time", "1", "--rss", "--job", job});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_TRUE(Has(refused.err, "--model: cannot be combined with --job " + job)) << refused.err;
  EXPECT_EQ(ListJobs(d).size(), jobs);
}

TEST(ClientEndToEnd, TorchscanDaemonNamesTheDaemonAndJobsCommandsNeedOne) {
  TestDaemon d(TempDir("env_daemon"));
  ASSERT_EQ(d.Client(kQuick).exit_code, 0);
  const CommandResult listed =
      e2e::Run("/usr/bin/env", {"TORCHSCAN_DAEMON=" + d.address(), Client(), "--json", "jobs", "list"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_TRUE(Has(listed.out, "job-000001")) << listed.out;
  const CommandResult none = e2e::Run("/usr/bin/env", {"-u", "TORCHSCAN_DAEMON", Client(), "jobs", "list"});
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_TRUE(Has(none.err, "jobs list: no resident daemon was given")) << none.err;
  EXPECT_TRUE(Has(none.err, "TORCHSCAN_DAEMON")) << none.err;
  // --daemon wins over TORCHSCAN_DAEMON.
  const CommandResult flag = e2e::Run(
      "/usr/bin/env", {"TORCHSCAN_DAEMON=unix:/nonexistent.sock", Client(), "--daemon", d.address(), "jobs", "list"});
  EXPECT_EQ(flag.exit_code, 0) << flag.err;
  const CommandResult bad =
      e2e::Run("/usr/bin/env", {"TORCHSCAN_DAEMON=unix:/nonexistent.sock", Client(), "jobs", "list"});
  EXPECT_EQ(bad.exit_code, 4) << bad.err;
  EXPECT_TRUE(Has(bad.err, "(from TORCHSCAN_DAEMON): there is no socket at /nonexistent.sock")) << bad.err;
}

}  // namespace
}  // namespace torchscan::e2e
