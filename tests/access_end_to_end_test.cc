// End-to-end access control with real processes: a torchscand listening on a unix socket and
// on loopback TCP with TLS and bearer tokens (throw-away certificates made with openssl per
// run), the real torchscan-client, and workers switched to an unprivileged user.
#include <netinet/in.h>
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
#include "report/json_io.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

namespace fs = std::filesystem;

const char* kAliceToken = "alice-7f3c9a1e5b2d4c6a8e0f";
const char* kBobToken = "bob-admin-1a2b3c4d5e6f7a8b9c";
const char* kCarolToken = "carol-0f9e8d7c6b5a49382716";

void WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
}

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

// A loopback TCP port nobody listens on right now.
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t size = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  ::close(fd);
  return ntohs(address.sin_port);
}

// A CA, a server certificate for "localhost" and a client certificate, all made here.
struct Pki {
  std::string dir, ca, server_cert, server_key, client_cert, client_key, other_ca;
};

Pki MakePki(const std::string& dir) {
  Pki p{dir, dir + "/ca.pem", dir + "/server.pem", dir + "/server.key", dir + "/client.pem", dir + "/client.key",
        dir + "/other-ca.pem"};
  const std::string script = "set -e; cd " + dir +
                             "; q='-loglevel error'; "
                             "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=torchscan-test-ca "
                             "-keyout ca.key -out ca.pem 2>/dev/null; "
                             "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca "
                             "-keyout other-ca.key -out other-ca.pem 2>/dev/null; "
                             "openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server.key "
                             "-out server.csr 2>/dev/null; "
                             "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1' > san.ext; "
                             "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
                             "-extfile san.ext -out server.pem 2>/dev/null; "
                             "openssl req -newkey rsa:2048 -nodes -subj /CN=alice -keyout client.key "
                             "-out client.csr 2>/dev/null; "
                             "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
                             "-out client.pem 2>/dev/null";
  const CommandResult r = e2e::Run("/bin/sh", {"-c", script}, 120);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return p;
}

// Where a daemon that drops workers to "nobody" can run them: as root, the worker and RSS
// child are copied into an open folder under /tmp (runfiles live under /root, which is
// closed) and the daemon's state goes there too. Not root: the runfiles as they are.
struct Placement {
  std::string state_dir;
  std::vector<std::string> flags;
};

Placement OpenPlacement(const std::string& name) {
  if (::geteuid() != 0) return {TempDir(name), {}};
  const std::string dir = "/tmp/torchscan-access-" + name + "-" + std::to_string(::getpid());
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0755);
  for (const char* binary : {"daemon/torchscan-worker", "core/workloads/torchscan_rss_child"})
    fs::copy_file(Runfile(binary), dir + "/" + fs::path(binary).filename().string());
  return {dir + "/state",
          {"--worker-user", "nobody", "--worker", dir + "/torchscan-worker", "--rss-child",
           dir + "/torchscan_rss_child"}};
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
  r = e2e::Run(Runfile("client/torchscan-client"), {"--daemon", tcp, "--tls-ca", pki_->ca, "--token-file", line, "info"});
  EXPECT_EQ(r.exit_code, 0) << r.err;

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
  EXPECT_TRUE(absl::StrContains(r.err, "over TLS: wrong server name: the daemon's certificate does not name \"bench9\""))
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
  EXPECT_TRUE(absl::StrContains(r.err, "was submitted by alice")) << r.err;
  r = d.Client({"jobs", "cancel", second});  // an unauthenticated local caller is not alice either
  EXPECT_EQ(r.exit_code, 5) << r.err;
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
  const CommandResult r = e2e::Run(Runfile("daemon/torchscand"), {"--state-dir", TempDir("no_creds"), "--listen", tcp}, 30);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(absl::StrContains(r.err, "needs credentials")) << r.err;
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

}  // namespace
}  // namespace torchscan::e2e
