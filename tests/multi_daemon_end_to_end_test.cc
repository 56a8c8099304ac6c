// One job on several daemons through --daemons-file, with real processes: torchscand
// processes listening on loopback TCP with TLS (throw-away certificates from openssl) and
// bearer tokens, and the real torchscan-client given a daemons file that lists them.
//
// The daemons file lists addresses only (client/client_context.h): the CA (--tls-ca) and the
// token (--token-file) are the client's, shared by every entry. So a daemon that refuses the
// token is one whose token_file does not hold it.
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/access_fixtures.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

const char* kAliceToken = "alice-3d5f7a9c1e2b4d6f8a0c";
const char* kCarolToken = "carol-8b6d4f2a0c9e7b5d3f1a";

class MultiDaemon : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pki_ = new Pki(MakePki(TempDir("pki"))); }
  static void TearDownTestSuite() { delete pki_; }

  // A daemon on 127.0.0.1:<free port> with TLS, whose token_file holds `user token`; its
  // workers run as nobody when the test is root (a TCP daemon refuses root workers).
  static std::unique_ptr<TestDaemon> TlsDaemon(const std::string& name, const std::string& user,
                                               const std::string& token, std::string* tcp) {
    *tcp = "127.0.0.1:" + std::to_string(FreePort());
    const std::string tokens = TempDir(name + "-tokens") + "/tokens";
    WriteFile(tokens, user + " " + token + "\n", 0600);
    const Placement placement = OpenPlacement(name);
    return std::make_unique<TestDaemon>(
        placement.state_dir, With(placement.flags, {"--listen", *tcp, "--tls-cert", pki_->server_cert, "--tls-key",
                                                    pki_->server_key, "--token-file", tokens}));
  }

  // torchscan-client --daemons-file FILE --tls-ca CA --token-file (alice's) measure ...
  static CommandResult MeasureOn(const std::vector<std::string>& addresses, const std::string& out) {
    std::string list = "# the lab's machines\n";
    for (const std::string& a : addresses) list += a + "\n";
    const std::string file = TempDir("daemons-" + std::to_string(++files_)) + "/daemons";
    WriteFile(file, list, 0644);
    const std::string token = TempDir("alice-token") + "/token";
    WriteFile(token, std::string(kAliceToken) + "\n", 0600);
    return e2e::Run(Runfile("client/torchscan-client"),
                    {"--daemons-file", file, "--tls-ca", pki_->ca, "--token-file", token, "measure", "--model",
                     "linear", "--min-run-time", "0.02", "--output", out},
                    300);
  }

  static Pki* pki_;
  static int files_;
};

Pki* MultiDaemon::pki_ = nullptr;
int MultiDaemon::files_ = 0;

std::string Hostname() {
  char name[256] = {};
  ::gethostname(name, sizeof(name) - 1);
  return name;
}

// The client's stderr line about machine `address` ("== HOST (ADDRESS, JOB): ..."); "" if none.
std::string LineAbout(const std::string& err, const std::string& address) {
  for (absl::string_view line : absl::StrSplit(err, '\n'))
    if (absl::StartsWith(line, "== ") && absl::StrContains(line, "(" + address)) return std::string(line);
  return "";
}

// The one job daemon `d` ran, which must have succeeded.
std::string OnlyJob(const TestDaemon& d) {
  const std::vector<v1::Job> jobs = ListJobs(d);
  EXPECT_EQ(jobs.size(), 1u);
  if (jobs.empty()) return "";
  EXPECT_EQ(jobs[0].state(), v1::Job::succeeded) << jobs[0].error();
  return jobs[0].id();
}

// Whether `written` is the result of job `id` as daemon `d` stored it (fetched over its
// unix socket into `dir`): the same message, blocks and timestamps included.
bool IsStoredResultOf(const std::string& written, const TestDaemon& d, const std::string& id, const std::string& dir) {
  const CommandResult fetched = d.Client({"jobs", "fetch", id, "--output", dir});
  EXPECT_EQ(fetched.exit_code, 0) << fetched.err;
  absl::StatusOr<v1::BenchmarkReport> mine = report::LoadReport(written),
                                      stored = report::LoadReport(dir + "/report.json");
  EXPECT_TRUE(mine.ok() && stored.ok()) << written << ", " << dir;
  return mine.ok() && stored.ok() && google::protobuf::util::MessageDifferencer::Equals(*mine, *stored);
}

TEST_F(MultiDaemon, OneJobOnTwoTlsDaemonsFromADaemonsFile) {
  std::string tcp_a, tcp_b;
  std::unique_ptr<TestDaemon> a = TlsDaemon("lab-a", "alice", kAliceToken, &tcp_a);
  std::unique_ptr<TestDaemon> b = TlsDaemon("lab-b", "alice", kAliceToken, &tcp_b);
  const std::string out = TempDir("both");
  const CommandResult r = MeasureOn({tcp_a, tcp_b}, out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::printf("%s", r.err.c_str());

  // Both daemons ran the job; each result sits under its machine's folder, named by the host
  // each daemon reported (the same host here: the second is made unique with "-2"), and its
  // heading names that daemon's address and job.
  const std::string host = Hostname();
  const std::vector<std::pair<TestDaemon*, std::pair<std::string, std::string>>> machines = {
      {a.get(), {tcp_a, host}}, {b.get(), {tcp_b, host + "-2"}}};
  for (const auto& [daemon, where] : machines) {
    const auto& [address, folder] = where;
    const std::string job = OnlyJob(*daemon);
    const std::string line = LineAbout(r.err, address);
    EXPECT_TRUE(absl::StartsWith(
        line, "== " + folder + " (" + address + ", " + job + "): wrote " + out + "/" + folder + "/report.json"))
        << line << "\n"
        << r.err;
    EXPECT_TRUE(absl::StrContains(r.out, "== " + folder + " (" + address + ", " + job + ")")) << r.out;
    const std::string written = out + "/" + folder + "/report.json";
    absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(written);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->environment().hostname(), host);
    EXPECT_GE(report->timing().blocks_size(), 1);
    // The very result that daemon stored, not the other daemon's.
    EXPECT_TRUE(IsStoredResultOf(written, *daemon, job, TempDir("stored-" + folder))) << folder;
  }
}

TEST_F(MultiDaemon, ADaemonRefusingTheTokenIsNamedAndTheOtherResultIsKept) {
  std::string tcp_a, tcp_c;
  std::unique_ptr<TestDaemon> a = TlsDaemon("lab-a2", "alice", kAliceToken, &tcp_a);
  std::unique_ptr<TestDaemon> c = TlsDaemon("lab-c", "carol", kCarolToken, &tcp_c);  // alice's token is not there
  const std::string out = TempDir("one_refused");
  const CommandResult r = MeasureOn({tcp_a, tcp_c}, out);
  std::printf("%s", r.err.c_str());
  EXPECT_EQ(r.exit_code, 5) << r.err;  // refused: a token (client/exit_codes.h)

  // The refusing entry: its own line names its address and the token problem.
  const std::string refused = LineAbout(r.err, tcp_c);
  EXPECT_TRUE(absl::StrContains(refused, tcp_c)) << r.err;
  EXPECT_TRUE(absl::StrContains(refused, "the token is not in the daemon's token_file")) << refused;
  EXPECT_TRUE(ListJobs(*c).empty()) << "the refusing daemon ran a job";

  // The other machine's result is kept and reported as usual.
  const std::string host = Hostname();
  const std::string job = OnlyJob(*a);
  EXPECT_TRUE(absl::StartsWith(LineAbout(r.err, tcp_a), "== " + host + " (" + tcp_a + ", " + job + "): wrote "))
      << r.err;
  EXPECT_TRUE(report::LoadReport(out + "/" + host + "/report.json").ok());
  EXPECT_TRUE(absl::StrContains(r.out, "== " + host + " (" + tcp_a + ", " + job + ")")) << r.out;
  EXPECT_TRUE(IsStoredResultOf(out + "/" + host + "/report.json", *a, job, TempDir("stored-a2")));
}

}  // namespace
}  // namespace torchscan::e2e
