#include "client/connect_diagnosis.h"

#include <arpa/inet.h>
#include <grp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace torchscan {
namespace {

bool Has(const absl::Status& s, const std::string& text) {
  return std::string(s.message()).find(text) != std::string::npos;
}

// A unix socket bound at `path`; listening unless `listen` is false. Returns the fd.
int BindUnix(const std::string& path, bool listen) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof(a.sun_path) - 1);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0) << path;
  if (listen) {
    EXPECT_EQ(::listen(fd, 4), 0);
  }
  return fd;
}

// A loopback TCP socket; listening when `listen`, else closed again (a free port). Returns
// "127.0.0.1:PORT"; `fd` gets the listening socket.
std::string Loopback(bool listen, int* fd) {
  *fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(*fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  socklen_t size = sizeof(a);
  ::getsockname(*fd, reinterpret_cast<sockaddr*>(&a), &size);
  if (listen) {
    ::listen(*fd, 4);
  } else {
    ::close(*fd);
    *fd = -1;
  }
  return "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
}

std::string ShortDir() {
  char dir[] = "/tmp/tscd-XXXXXX";
  EXPECT_NE(::mkdtemp(dir), nullptr);
  return dir;
}

TEST(DiagnoseConnectFailure, AMissingOrStaleUnixSocketIsUnavailableSayingWhich) {
  const std::string dir = ShortDir();
  ConnectFailure f;
  f.address = "unix:" + dir + "/none.sock";
  f.source = "TORCHSCAN_DAEMON";
  absl::Status s = DiagnoseConnectFailure(f);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(Has(s, "(from TORCHSCAN_DAEMON): there is no socket at " + dir + "/none.sock")) << s;
  EXPECT_TRUE(Has(s, "start torchscand there")) << s;

  EXPECT_EQ(ProbeUnixSocket(f).code(), absl::StatusCode::kUnavailable);  // the same answer, before dialling

  ::close(BindUnix(dir + "/stale.sock", /*listen=*/false));
  f.address = "unix:" + dir + "/stale.sock";
  s = DiagnoseConnectFailure(f);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(Has(s, "is a socket nobody listens on")) << s;
  std::filesystem::remove_all(dir);
}

// The message a process running as `nobody` gets for `address`, read back through a pipe.
std::string AsNobody(const std::string& address) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const gid_t nogroup = 65534;
    if (::setgroups(0, nullptr) != 0 || ::setgid(nogroup) != 0 || ::setuid(65534) != 0) ::_exit(9);
    ConnectFailure f;
    f.address = address;
    const absl::Status s = DiagnoseConnectFailure(f);
    const std::string text = std::to_string(static_cast<int>(s.code())) + " " + std::string(s.message());
    (void)!::write(fds[1], text.data(), text.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof(buffer))) > 0;) text.append(buffer, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child could not become nobody";
  return text;
}

TEST(DiagnoseConnectFailure, ASocketTheCallerMayNotOpenIsPermissionDeniedNamingItsGroup) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  const group* daemon_group = ::getgrnam("daemon");
  if (daemon_group == nullptr) GTEST_SKIP() << "no group named daemon";
  const std::string dir = ShortDir();
  ::chmod(dir.c_str(), 0755);
  const std::string path = dir + "/d.sock";
  const int fd = BindUnix(path, /*listen=*/true);
  ASSERT_EQ(::chown(path.c_str(), 0, daemon_group->gr_gid), 0) << path;
  ::chmod(path.c_str(), 0660);
  ConnectFailure open;
  open.address = "unix:" + path;
  EXPECT_TRUE(ProbeUnixSocket(open).ok());  // root may; a listening socket answers
  const std::string got = AsNobody("unix:" + path);
  EXPECT_EQ(got.rfind(std::to_string(static_cast<int>(absl::StatusCode::kPermissionDenied)) + " ", 0), 0u) << got;
  EXPECT_NE(got.find("permission denied on unix:" + path +
                     ": the socket belongs to user root and group daemon "
                     "with mode 0660"),
            std::string::npos)
      << got;
  EXPECT_NE(got.find("sudo usermod -aG daemon nobody"), std::string::npos) << got;

  // A closed folder on the way is named instead.
  ::chmod(dir.c_str(), 0700);
  const std::string closed = AsNobody("unix:" + path);
  EXPECT_NE(closed.find("the folder " + dir + " (owner root, group root, mode 0700) is closed to you"),
            std::string::npos)
      << closed;
  ::close(fd);
  std::filesystem::remove_all(dir);
}

TEST(DiagnoseConnectFailure, PlainTcpTellsAClosedPortFromATlsDaemon) {
  int fd;
  ConnectFailure f;
  f.address = Loopback(/*listen=*/false, &fd);
  absl::Status s = DiagnoseConnectFailure(f);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(Has(s, "nothing listens on that port (connection refused)")) << s;

  f.address = Loopback(/*listen=*/true, &fd);
  s = DiagnoseConnectFailure(f);
  EXPECT_TRUE(Has(s, "without TLS: something listens there")) << s;
  EXPECT_TRUE(Has(s, "pass --tls-ca")) << s;
  ::close(fd);
}

TEST(DiagnoseConnectFailure, TlsFailuresLeadWithTheLikelyCause) {
  int fd;
  ConnectFailure f;
  f.address = Loopback(/*listen=*/true, &fd);
  f.tls_ca_file = "other-ca.pem";
  const std::string lead = "cannot connect to " + f.address + " over TLS: ";

  f.grpc_log = {
      "Handshake failed with fatal error SSL_ERROR_SSL: error:0A000086:SSL routines::certificate verify "
      "failed."};
  absl::Status s = DiagnoseConnectFailure(f);
  EXPECT_EQ(s.message().rfind(lead + "wrong CA: the daemon's certificate is not signed by --tls-ca other-ca.pem", 0),
            0u)
      << s;

  f.tls_server_name = "bench9";
  f.grpc_log = {"Security handshake failed: UNKNOWN:Peer name bench9 is not in peer certificate {file:...}"};
  s = DiagnoseConnectFailure(f);
  EXPECT_EQ(s.message().rfind(lead + "wrong server name: the daemon's certificate does not name \"bench9\"", 0), 0u)
      << s;
  EXPECT_TRUE(Has(s, "--tls-server-name")) << s;

  f.grpc_log = {"Handshake failed with fatal error SSL_ERROR_SSL: error:0A00010B:SSL routines::wrong version number"};
  s = DiagnoseConnectFailure(f);
  EXPECT_EQ(s.message().rfind(lead + "plain TCP answered, not TLS", 0), 0u) << s;

  f.grpc_log = {
      "Handshake failed with fatal error SSL_ERROR_SSL: error:0A00045C:SSL routines::tlsv13 alert "
      "certificate required"};
  s = DiagnoseConnectFailure(f);
  EXPECT_TRUE(Has(s, "wants a client certificate (mutual TLS): pass --tls-cert and --tls-key")) << s;

  // Closed without a word (TLS 1.3 and a mutual-TLS daemon): the client certificate first.
  f.grpc_log.clear();
  s = DiagnoseConnectFailure(f);
  EXPECT_EQ(s.message().rfind(lead + "the connection closed without an answer: a daemon with mutual TLS wants a "
                                     "client certificate (pass --tls-cert and --tls-key)",
                              0),
            0u)
      << s;
  f.client_certificate = true;
  s = DiagnoseConnectFailure(f);
  EXPECT_TRUE(Has(s, "the daemon may refuse your --tls-cert")) << s;
  ::close(fd);

  f.grpc_log.clear();
  f.address = Loopback(/*listen=*/false, &fd);
  s = DiagnoseConnectFailure(f);
  EXPECT_TRUE(Has(s, "nothing listens on that port")) << s;
}

}  // namespace
}  // namespace torchscan
