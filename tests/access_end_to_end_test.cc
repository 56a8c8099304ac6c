// End-to-end access control with real processes: a torchscand listening on a unix socket and
// on loopback TCP with TLS and bearer tokens (throw-away certificates made with openssl per
// run), the real torchscan-client, workers switched to an unprivileged user (who cannot
// read the submitter's files: they travel with the job), and (as root) throw-away local
// users calling over the unix socket as themselves.
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/access_fixtures.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

namespace fs = std::filesystem;

const char* kAliceToken = "alice-7f3c9a1e5b2d4c6a8e0f";
const char* kBobToken = "bob-admin-1a2b3c4d5e6f7a8b9c";
const char* kCarolToken = "carol-0f9e8d7c6b5a49382716";

// The soft limit column of /proc/PID/limits for the row `name`.
std::string SoftLimit(const std::string& limits, const std::string& name) {
  std::istringstream in(limits);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name, 0) != 0) continue;
    std::istringstream fields(line.substr(name.size()));
    std::string soft;
    fields >> soft;
    return soft;
  }
  return "";
}

// The id of a queued job submitted by `submitter` (waits at most 30 s); "" when none came.
std::string WaitForQueuedJobOf(const TestDaemon& d, const std::string& submitter) {
  for (int i = 0; i < 300; ++i) {
    for (const v1::Job& job : ListJobs(d, {"--state", "queued"}))
      if (job.submitter() == submitter) return job.id();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ADD_FAILURE() << "no queued job of " << submitter << " appeared within 30 s";
  return "";
}

// The line of a `jobs list` table that shows job `id`.
std::string LineOf(const std::string& table, const std::string& id) {
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);)
    if (absl::StartsWith(line, id + " ")) return line;
  return "";
}

class AccessTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    pki_ = new Pki(MakePki(TempDir("pki")));
    tokens_ = new std::string(TempDir("tokens") + "/tokens");
    WriteFile(*tokens_,
              std::string("# test users\nalice ") + kAliceToken + "\nbob " + kBobToken + " admin\ncarol " +
                  kCarolToken + "\n",
              0600);
  }
  static void TearDownTestSuite() {
    delete pki_;
    delete tokens_;
  }

  // torchscan-client --daemon tcp ... with `token` (empty: none) over TLS (unless `tls` false).
  static CommandResult Tcp(const std::string& address, const std::string& token, const std::vector<std::string>& args,
                           bool tls = true, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> all = {"--daemon", address};
    if (tls) all.insert(all.end(), {"--tls-ca", pki_->ca});
    if (!token.empty()) {
      const std::string file = TempDir("token-" + token.substr(0, 5)) + "/token";
      WriteFile(file, token + "\n", 0600);
      all.insert(all.end(), {"--token-file", file});
    }
    all.insert(all.end(), extra.begin(), extra.end());
    all.insert(all.end(), args.begin(), args.end());
    return e2e::Run(Runfile("client/torchscan-client"), all, 120);
  }

  // A daemon on a unix socket and on `tcp` with TLS and the test's tokens.
  static std::unique_ptr<TestDaemon> TcpDaemon(const std::string& name, const std::string& tcp,
                                               const std::vector<std::string>& more = {},
                                               const std::string& token_file = "") {
    Placement placement = OpenPlacement(name);
    std::vector<std::string> flags =
        With(placement.flags, {"--listen", tcp, "--tls-cert", pki_->server_cert, "--tls-key", pki_->server_key,
                               "--token-file", token_file.empty() ? *tokens_ : token_file});
    return std::make_unique<TestDaemon>(placement.state_dir, With(flags, more));
  }

  static Pki* pki_;
  static std::string* tokens_;
};

Pki* AccessTest::pki_ = nullptr;
std::string* AccessTest::tokens_ = nullptr;

TEST_F(AccessTest, TcpNeedsAValidTokenOverTls) {
  const std::string tcp = "127.0.0.1:" + std::to_string(FreePort());
  std::unique_ptr<TestDaemon> daemon = TcpDaemon("tls_tokens", tcp);
  TestDaemon& d = *daemon;

  CommandResult r = Tcp(tcp, kAliceToken, {"--json", "info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The admin's "USER TOKEN" line, as the deploy guide hands it out, works as a token file.
  const std::string line = TempDir("token-line") + "/token";
  WriteFile(line, std::string("alice ") + kAliceToken + "\n", 0600);
  r = e2e::Run(Runfile("client/torchscan-client"),
               {"--daemon", tcp, "--tls-ca", pki_->ca, "--token-file", line, "info"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  libtorch  2."), std::string::npos) << r.out;  // the workers' LibTorch

  r = Tcp(tcp, "", {"info"});  // no token
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "authorization: this daemon needs a bearer token")) << r.err;

  const std::string forged = "mallory-0000000000000000000";
  r = Tcp(tcp, forged, {"jobs", "list"});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "the token is not in the daemon's token_file")) << r.err;
  EXPECT_FALSE(absl::StrContains(r.err, forged));

  r = Tcp(tcp, kAliceToken, {"info"}, /*tls=*/false);  // the client will not leak a token
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "--token-file: refusing to send a token")) << r.err;

  r = Tcp(tcp, "", {"info"}, /*tls=*/false);  // plain gRPC cannot talk to a TLS port
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "pass --tls-ca")) << r.err;

  r = Tcp(tcp, kAliceToken, {"--tls-ca", pki_->other_ca, "info"}, false);  // a CA that did not sign it
  EXPECT_EQ(r.exit_code, 4) << r.err;
  // The likely cause leads, and gRPC's own log lines are not printed before it.
  EXPECT_EQ(r.err.rfind("torchscan-client: cannot connect to " + tcp + " (from --daemon) over TLS: wrong CA", 0), 0u)
      << r.err;
  EXPECT_FALSE(absl::StrContains(r.err, "ssl_transport_security")) << r.err;
  r = Tcp(tcp, kAliceToken, {"--tls-server-name", "bench9", "info"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_TRUE(
      absl::StrContains(r.err, "over TLS: wrong server name: the daemon's certificate does not name \"bench9\""))
      << r.err;
  r = Tcp("127.0.0.1:" + std::to_string(FreePort()), kAliceToken, {"info"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "nothing listens on that port")) << r.err;

  // The unix socket still works without a token, and refuses a forged one.
  EXPECT_EQ(d.Client({"info"}).exit_code, 0);
  r = d.Client({"--token-file", TempDir("token-mallo") + "/token", "info"});
  EXPECT_EQ(r.exit_code, 5) << r.err;
}

TEST_F(AccessTest, JobsRecordTheirSubmitterAndOnlyOwnersOrAdminsCancel) {
  const std::string tcp = "127.0.0.1:" + std::to_string(FreePort());
  std::unique_ptr<TestDaemon> daemon = TcpDaemon("owners", tcp);
  TestDaemon& d = *daemon;

  // alice: a long job that runs, and one that waits behind it.
  std::future<CommandResult> running = std::async(std::launch::async, [&] {
    return Tcp(tcp, kAliceToken, {"measure", "--model", "linear", "--min-run-time", "120"});
  });
  const v1::Job first = WaitForRunningJob(d);
  ASSERT_FALSE(first.id().empty());
  std::future<CommandResult> queued = std::async(std::launch::async, [&] {
    return Tcp(tcp, kAliceToken, {"measure", "--model", "linear", "--min-run-time", "0.02"});
  });
  std::string second;
  for (int i = 0; i < 100 && second.empty(); ++i) {
    for (const v1::Job& job : ListJobs(d))
      if (job.state() == v1::Job::queued) second = job.id();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(second.empty());
  EXPECT_EQ(ShowJob(d, first.id()).submitter(), "alice");

  CommandResult r = Tcp(tcp, kCarolToken, {"jobs", "cancel", first.id()});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "carol may not cancel job " + first.id() + ", which another user submitted"))
      << r.err;
  // On the unix socket a caller is its login name: alice's token does not make it alice.
  const std::string alice_token = TempDir("token-alice-socket") + "/token";
  WriteFile(alice_token, std::string(kAliceToken) + "\n", 0600);
  r = d.Client({"--token-file", alice_token, "jobs", "cancel", second});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "the token was issued to alice, but this unix-socket connection comes from"))
      << r.err;
  EXPECT_EQ(ShowJob(d, second).state(), v1::Job::queued);

  r = Tcp(tcp, kAliceToken, {"jobs", "cancel", second});  // the owner
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Tcp(tcp, kBobToken, {"jobs", "cancel", first.id()});  // an admin
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(running.get().exit_code, 3);
  EXPECT_EQ(queued.get().exit_code, 3);
  EXPECT_TRUE(absl::StrContains(ShowJob(d, first.id()).error(), "cancelled by bob")) << ShowJob(d, first.id()).error();

  // Tokens appear nowhere: not in the daemon's log, not in any stored file.
  std::string stored = Slurp(d.state_dir() + ".log");
  for (const auto& entry : fs::recursive_directory_iterator(d.state_dir()))
    if (entry.is_regular_file()) stored += Slurp(entry.path().string());
  for (const char* token : {kAliceToken, kBobToken, kCarolToken})
    EXPECT_FALSE(absl::StrContains(stored, token)) << "token found in the daemon's log or state";
  EXPECT_TRUE(absl::StrContains(stored, "alice"));  // while the user names are recorded
}

// A job's result, its record and its progress are its submitter's and the admins' (issue 41):
// carol, another token holder, is refused each without learning who submitted it, her list
// shows the job without its label and metadata, and a label's history holds only her own jobs.
// Before the rule her `jobs fetch` wrote alice's report.json and .html.
TEST_F(AccessTest, OnlyTheSubmitterOrAnAdminSeesAJobsResult) {
  const std::string tcp = "127.0.0.1:" + std::to_string(FreePort());
  std::unique_ptr<TestDaemon> daemon = TcpDaemon("privacy", tcp);
  TestDaemon& d = *daemon;
  CommandResult r = Tcp(tcp, kAliceToken,
                        {"measure", "--model", "linear", "--min-run-time", "0.02", "--label", "alice-private-bench",
                         "--metadata", "secret=alice-private-note", "--output", TempDir("privacy-alice-measure")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<v1::Job> jobs = ListJobs(d);  // root on the socket: an admin, who sees all
  ASSERT_EQ(jobs.size(), 1u);
  const std::string id = jobs[0].id();
  ASSERT_EQ(jobs[0].spec().label(), "alice-private-bench");

  const std::string carol_out = TempDir("privacy-carol");
  const std::vector<std::vector<std::string>> reads = {
      {"jobs", "fetch", id, "--output", carol_out}, {"jobs", "show", id}, {"jobs", "watch", id}};
  for (const std::vector<std::string>& read : reads) {
    r = Tcp(tcp, kCarolToken, read);
    EXPECT_EQ(r.exit_code, 5) << read[1] << ": " << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "carol may not ")) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "only a job's submitter or an admin")) << r.err;
    EXPECT_FALSE(absl::StrContains(r.err, "alice")) << r.err;
  }
  EXPECT_FALSE(fs::exists(carol_out + "/report.json"));
  r = Tcp(tcp, kCarolToken, {"--json", "jobs", "list"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, id)) << r.out;  // the shared queue is seen
  EXPECT_FALSE(absl::StrContains(r.out, "alice-private")) << r.out;
  r = Tcp(tcp, kCarolToken, {"history", "alice-private-bench"});
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_FALSE(absl::StrContains(r.out + r.err, id)) << r.out << r.err;

  // The submitter and an admin fetch it.
  for (const char* token : {kAliceToken, kBobToken}) {
    const std::string out = TempDir(std::string("privacy-fetch-") + std::string(token).substr(0, 3));
    r = Tcp(tcp, token, {"jobs", "fetch", id, "--output", out});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(absl::StrContains(Slurp(out + "/report.json"), "alice-private-note")) << out;
  }
}

// Real local users on one daemon's unix socket (socket group `users`, admin_group `admins`):
// each is known by their login name, and is the same person over TCP with a token issued to
// that name; only a job's submitter, root or a member of admin_group may cancel it.
TEST_F(AccessTest, LocalUsersAreTheirLoginNamesOnTheSocket) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root: it creates throw-away local users and groups (useradd, groupadd) to connect as "
                    "(CI runs the tests as root)";
  const std::string suffix = std::to_string(::getpid() % 100000);
  const std::string users = "tsu" + suffix, admins = "tsadm" + suffix;
  const std::string alice = "tsa" + suffix, bob = "tsb" + suffix, carol = "tsc" + suffix;  // carol: an admin
  LocalAccounts accounts("/tmp/torchscan-identity-" + suffix);
  accounts.AddGroup(users);
  accounts.AddGroup(admins);
  accounts.AddUser(alice, users);
  accounts.AddUser(bob, users);
  accounts.AddUser(carol, users + "," + admins);
  if (HasFatalFailure()) return;
  const std::string client = accounts.dir() + "/torchscan-client";  // runfiles under /root are closed to them
  fs::copy_file(Runfile("client/torchscan-client"), client);
  ::chmod(client.c_str(), 0755);

  // alice has a token issued to her login name, for TCP.
  const std::string alice_token = "identity-alice-5e1f0c2b9d7a";
  const std::string tokens = TempDir("identity-tokens") + "/tokens";
  WriteFile(tokens, alice + " " + alice_token + "\n", 0600);
  const std::string token_copy = TempDir("identity-token") + "/token";
  WriteFile(token_copy, alice_token + "\n", 0600);
  const std::string alice_token_file = accounts.GiveFile(alice, token_copy, 0600);
  const std::string alice_ca = accounts.GiveFile(alice, pki_->ca, 0644);
  const std::string tcp = "127.0.0.1:" + std::to_string(FreePort());
  std::unique_ptr<TestDaemon> daemon =
      TcpDaemon("identities", tcp, {"--socket-group", users, "--admin-group", admins}, tokens);
  TestDaemon& d = *daemon;
  const std::string socket = d.address().substr(std::string("unix:").size());
  ::chmod(fs::path(socket).parent_path().c_str(), 0755);  // the socket itself stays 0660, group `users`
  auto over_socket = [&](const std::string& user, const std::vector<std::string>& args) {
    return accounts.RunAs(user, client, With({"--daemon", d.address()}, args));
  };
  const std::vector<std::string> long_job = {"measure", "--model", "linear", "--min-run-time", "120"};
  const std::vector<std::string> short_job = {"measure", "--model", "linear", "--min-run-time", "0.02"};

  // alice: a long job over TCP with her token, then one over the socket that waits behind it.
  std::future<CommandResult> tcp_job = std::async(std::launch::async, [&] {
    return accounts.RunAs(alice, client,
                          With({"--daemon", tcp, "--tls-ca", alice_ca, "--token-file", alice_token_file}, long_job));
  });
  const v1::Job running = WaitForRunningJob(d);
  ASSERT_FALSE(running.id().empty());
  EXPECT_EQ(running.submitter(), alice);
  std::future<CommandResult> alice_job = std::async(std::launch::async, [&] { return over_socket(alice, short_job); });
  const std::string alice_queued = WaitForQueuedJobOf(d, alice);
  std::future<CommandResult> bob_job = std::async(std::launch::async, [&] { return over_socket(bob, short_job); });
  const std::string bob_queued = WaitForQueuedJobOf(d, bob);
  ASSERT_FALSE(alice_queued.empty() || bob_queued.empty());

  // Everyone sees each job under its submitter's login name.
  for (const std::string& user : {alice, bob}) {
    const CommandResult list = over_socket(user, {"jobs", "list"});
    ASSERT_EQ(list.exit_code, 0) << user << ": " << list.err;
    EXPECT_TRUE(absl::StrContains(LineOf(list.out, running.id()), " " + alice + " ")) << list.out;
    EXPECT_TRUE(absl::StrContains(LineOf(list.out, alice_queued), " " + alice + " ")) << list.out;
    EXPECT_TRUE(absl::StrContains(LineOf(list.out, bob_queued), " " + bob + " ")) << list.out;
    EXPECT_FALSE(absl::StrContains(list.out, " local ")) << list.out;
  }

  // bob may not cancel alice's job; the message names the rule and how to get the right.
  CommandResult r = over_socket(bob, {"jobs", "cancel", alice_queued});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, bob + " may not cancel job " + alice_queued + ", which another user submitted"))
      << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "usermod -aG " + admins + " " + bob)) << r.err;
  EXPECT_EQ(ShowJob(d, alice_queued).state(), v1::Job::queued);
  // Nor does alice's token make him alice on the socket.
  const std::string stolen = accounts.GiveFile(bob, token_copy, 0600);
  r = over_socket(bob, {"--token-file", stolen, "jobs", "cancel", alice_queued});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "issued to " + alice + ", but this unix-socket connection comes from " + bob))
      << r.err;
  EXPECT_EQ(ShowJob(d, alice_queued).state(), v1::Job::queued);

  // A member of admin_group (a supplementary group) and root may.
  r = over_socket(carol, {"jobs", "cancel", bob_queued});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ShowJob(d, bob_queued).error(), "cancelled by " + carol + " while queued");
  r = d.Client({"jobs", "cancel", alice_queued});  // this test runs as root
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ShowJob(d, alice_queued).error(), "cancelled by root while queued");

  // alice cancels her TCP job over the socket without a token: the same person.
  r = over_socket(alice, {"jobs", "cancel", running.id()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StartsWith(ShowJob(d, running.id()).error(), "cancelled by " + alice + " while running"))
      << ShowJob(d, running.id()).error();
  EXPECT_EQ(tcp_job.get().exit_code, 3);
  EXPECT_EQ(alice_job.get().exit_code, 3);
  EXPECT_EQ(bob_job.get().exit_code, 3);
}

TEST_F(AccessTest, MutualTlsRefusesClientsWithoutACertificate) {
  const std::string tcp = "127.0.0.1:" + std::to_string(FreePort());
  std::unique_ptr<TestDaemon> daemon = TcpDaemon("mtls", tcp, {"--tls-client-ca", pki_->ca});
  CommandResult r = Tcp(tcp, kAliceToken, {"info"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "pass --tls-cert and --tls-key")) << r.err;
  r = Tcp(tcp, kAliceToken, {"info"}, true, {"--tls-cert", pki_->client_cert, "--tls-key", pki_->client_key});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(AccessTest, EditedTokenFilesApplyWithoutARestart) {
  const std::string tcp = "127.0.0.1:" + std::to_string(FreePort());
  const std::string tokens = TempDir("rotating") + "/tokens";
  WriteFile(tokens, std::string("alice ") + kAliceToken + "\n", 0600);
  std::unique_ptr<TestDaemon> daemon = TcpDaemon("rotating", tcp, {}, tokens);
  ASSERT_EQ(Tcp(tcp, kAliceToken, {"info"}).exit_code, 0);
  const int pid = daemon->pid();

  WriteFile(tokens, std::string("carol ") + kCarolToken + "\n", 0600);  // alice's token revoked
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));         // checked once a second
  EXPECT_EQ(Tcp(tcp, kAliceToken, {"info"}).exit_code, 5);
  EXPECT_EQ(Tcp(tcp, kCarolToken, {"info"}).exit_code, 0);

  WriteFile(tokens, "carol short\n", 0600);  // a broken edit keeps the tokens in force
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(Tcp(tcp, kCarolToken, {"info"}).exit_code, 0);
  EXPECT_EQ(daemon->pid(), pid);
  EXPECT_TRUE(daemon->Running());
}

TEST_F(AccessTest, TcpWithoutCredentialsDoesNotStart) {
  const std::string tcp = "127.0.0.1:" + std::to_string(FreePort());
  const CommandResult r =
      e2e::Run(Runfile("daemon/torchscand"), {"--state-dir", TempDir("no_creds"), "--listen", tcp}, 30);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(absl::StrContains(r.err, "needs credentials")) << r.err;
}

// A TCP port another torchscand holds is refused (gRPC's default SO_REUSEPORT would have let
// both listen, the callers split between them), and the first daemon keeps serving.
TEST_F(AccessTest, ATcpPortAnotherDaemonHoldsIsRefused) {
  const std::string tcp = "127.0.0.1:" + std::to_string(FreePort());
  std::unique_ptr<TestDaemon> first = TcpDaemon("port_first", tcp);
  const Placement second = OpenPlacement("port_second");
  const CommandResult r =
      e2e::Run(Runfile("daemon/torchscand"),
               With(second.flags, {"--state-dir", second.state_dir, "--listen", tcp, "--tls-cert", pki_->server_cert,
                                   "--tls-key", pki_->server_key, "--token-file", *tokens_}),
               60);
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "listen: gRPC could not listen on every TCP address (" + tcp)) << r.err;
  EXPECT_EQ(Tcp(tcp, kAliceToken, {"info"}).exit_code, 0);
}

// As root, workers run as "nobody": the binaries and the state folder are put where nobody
// can reach them (runfiles live under /root, which is closed).
TEST_F(AccessTest, WorkersRunAsTheUnprivilegedUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  Placement placement = OpenPlacement("nobody");
  TestDaemon d(placement.state_dir, With(placement.flags, {"--worker-open-files", "256"}));
  std::future<CommandResult> job = InBackground(d, {"measure", "--model", "linear", "--min-run-time", "3", "--rss"});
  const v1::Job running = WaitForRunningJob(d);
  ASSERT_GT(running.worker_pid(), 0);
  const std::string status = Slurp("/proc/" + std::to_string(running.worker_pid()) + "/status");
  const std::string limits = Slurp("/proc/" + std::to_string(running.worker_pid()) + "/limits");
  EXPECT_TRUE(absl::StrContains(status, "Uid:\t65534\t65534\t65534\t65534")) << status;
  EXPECT_TRUE(absl::StrContains(status, "NoNewPrivs:\t1")) << status;
  EXPECT_EQ(SoftLimit(limits, "Max open files"), "256") << limits;
  EXPECT_EQ(SoftLimit(limits, "Max core file size"), "0") << limits;
  const CommandResult r = job.get();
  EXPECT_EQ(r.exit_code, 0) << r.err;  // and the job, RSS child included, still works
}

// The hash `sha256sum FILE` prints: what a user matches a report against.
std::string Sha256sum(const std::string& file) {
  const CommandResult r = e2e::Run("/usr/bin/sha256sum", {file}, 30);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out.substr(0, 64);
}

// Files travel with the job: a module, a tensor and a check module saved from Python into a
// folder only root may enter, measured and compared on a daemon whose workers run as
// nobody. Uploaded (the default) it works, and the reports name each file with the hash
// sha256sum prints; sent as paths (--daemon-path) it fails naming the file and nobody.
TEST_F(AccessTest, FilesInAFolderTheWorkersCannotReadAreUploadedWithTheJob) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (workers as nobody)";
  const std::string closed = TempDir("closed_models");
  ASSERT_EQ(::chmod(closed.c_str(), 0700), 0);
  const CommandResult made = e2e::Run(e2e::ProjectPython(), {Runfile("tests/python/make_models.py"), closed}, 120);
  ASSERT_EQ(made.exit_code, 0)
      << "tests/python/make_models.py needs the project environment's torch (scripts/setup.sh): " << made.err;
  ASSERT_EQ(e2e::Run(Runfile("tests/make_check_modules"), {closed}).exit_code, 0);
  Placement placement = OpenPlacement("files");
  // A module nobody can read beside the state folder, for the last case.
  const std::string open_module = fs::path(placement.state_dir).parent_path().string() + "/mlp.pt";
  fs::copy_file(closed + "/mlp.pt", open_module, fs::copy_options::overwrite_existing);
  ::chmod(open_module.c_str(), 0644);
  // Both are shared with the (sandboxed) jobs, so that --daemon-path reaches the worker, whose
  // user's permissions then decide.
  std::vector<std::string> flags = placement.flags;
  flags.insert(flags.end(), {"--share", closed, "--share", open_module});
  TestDaemon d(placement.state_dir, flags);
  // The client runs in the closed folder and names its files relative to it, as a user would.
  const auto client_in = [&](const std::string& dir, const std::vector<std::string>& args) {
    std::string command =
        "cd '" + dir + "' && exec '" + Runfile("client/torchscan-client") + "' --daemon " + d.address();
    for (const std::string& arg : args) command += " '" + arg + "'";
    return e2e::Run("/bin/sh", {"-c", command}, 180);
  };

  const std::string out = TempDir("uploaded_measure");
  CommandResult r = client_in(closed, {"measure", "--torchscript", "mlp.pt", "--input-file", "x=x.pt", "--min-run-time",
                                       "0.02", "--output", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(out + "/report.json");
  ASSERT_TRUE(report.ok()) << report.status();
  const auto& described = report->workload();
  EXPECT_EQ(described.at("model_revision"), "sha256:" + Sha256sum(closed + "/mlp.pt"));
  EXPECT_TRUE(absl::StartsWith(described.at("model_source"), closed + "/mlp.pt (uploaded, "))
      << described.at("model_source");
  EXPECT_EQ(described.at("input.x.sha256"), "sha256:" + Sha256sum(closed + "/x.pt"));
  EXPECT_TRUE(absl::StartsWith(described.at("input.x.file"), closed + "/x.pt (uploaded, "))
      << described.at("input.x.file");
  EXPECT_EQ(report->input_metadata().fields().at("input.x.source"), "tensor file");

  // A job file in the closed folder, run from elsewhere: its paths are taken from its folder.
  std::ofstream(closed + "/job.json") << R"({"compare": {
      "baseline": {"model": {"torchscript": {"path": "mlp.pt"}}, "inputs": [{"name": "x", "tensor_file": "x.pt"}]},
      "candidate": {"model": {"torchscript": {"path": "mlp_optimized.pt"}}, "inputs": [{"name": "x", "tensor_file": "x.pt"}]},
      "check": {"torchscript": {"path": "pass.pt"}}}, "options": {"min_run_time_s": 0.02, "skip_diagnostics": true}})";
  const std::string compared = TempDir("uploaded_compare");
  r = client_in(TempDir("elsewhere"), {"compare", "--job", closed + "/job.json", "--output", compared});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(compared + "/comparison.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->compatibility().compatible()) << c->compatibility().DebugString();  // the same x.pt on both sides
  EXPECT_EQ(c->after().workload().at("model_revision"), "sha256:" + Sha256sum(closed + "/mlp_optimized.pt"));
  EXPECT_EQ(c->output_check().status(), v1::OutputCheck::passed) << c->output_check().message();
  EXPECT_TRUE(absl::StartsWith(c->output_check().module(), closed + "/pass.pt (uploaded, "))
      << c->output_check().module();
  EXPECT_TRUE(absl::EndsWith(c->output_check().module(), " sha256:" + Sha256sum(closed + "/pass.pt")))
      << c->output_check().module();

  // The same files as paths for the daemon's machine: its workers (nobody) cannot enter the folder.
  r = client_in(closed, {"measure", "--torchscript", "mlp.pt", "--input-file", "x=x.pt", "--min-run-time", "0.02",
                         "--daemon-path"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  for (const std::string& part : {std::string("model.torchscript.path"), "'" + closed + "/mlp.pt'",
                                  std::string("running as user nobody (uid 65534)"), std::string("Permission denied"),
                                  std::string("leave out --daemon-path")})
    EXPECT_TRUE(absl::StrContains(r.err, part)) << part << " in " << r.err;
  // A module nobody can read, and the tensor file still closed: the tensor file is named.
  r = client_in(closed, {"measure", "--torchscript", open_module, "--input-file", "x=x.pt", "--min-run-time", "0.02",
                         "--daemon-path"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  for (const std::string& part :
       {std::string("inputs[0].tensor_file"), "'" + closed + "/x.pt'", std::string("nobody (uid 65534)")})
    EXPECT_TRUE(absl::StrContains(r.err, part)) << part << " in " << r.err;
}

}  // namespace
}  // namespace torchscan::e2e
