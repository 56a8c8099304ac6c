#include "client/connect_diagnosis.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace torchscan {
namespace {

std::string UserName(uid_t uid) {
  const passwd* p = ::getpwuid(uid);
  return p != nullptr ? p->pw_name : std::to_string(uid);
}

std::string GroupName(gid_t gid) {
  const group* g = ::getgrgid(gid);
  return g != nullptr ? g->gr_name : std::to_string(gid);
}

std::string Mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof(text), "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// Whether this process runs with `gid` among its groups now.
bool HasGroupNow(gid_t gid) {
  if (::getegid() == gid) return true;
  gid_t groups[1024];
  const int n = ::getgroups(1024, groups);
  for (int i = 0; i < n; ++i)
    if (groups[i] == gid) return true;
  return false;
}

// Whether the user database makes `user` a member of `gid` (effective after a new login).
bool MemberOnRecord(const std::string& user, gid_t gid) {
  const group* g = ::getgrgid(gid);
  if (g == nullptr) return false;
  for (char** m = g->gr_mem; m != nullptr && *m != nullptr; ++m)
    if (user == *m) return true;
  const passwd* p = ::getpwnam(user.c_str());
  return p != nullptr && p->pw_gid == gid;
}

// "ask an admin to add you to GROUP (...)" or "log in again" when already on record.
std::string JoinGroupFix(gid_t gid) {
  const std::string me = UserName(::geteuid()), group = GroupName(gid);
  if (MemberOnRecord(me, gid) && !HasGroupNow(gid))
    return absl::StrCat("you (", me, ") were added to group ", group,
                        " but this session predates it: log in again, or run `newgrp ", group, "`");
  return absl::StrCat("you (", me, ") are not in group ", group, ": ask an admin to add you (sudo usermod -aG ", group,
                      " ", me, "), then log in again");
}

// PermissionDenied for the socket at `path` (connect said EACCES): the closed folder on the
// way, or the socket's own group.
absl::Status SocketPermissionDenied(const std::string& address, const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string folder = path.substr(0, slash);
    struct stat info;
    if (::access(folder.c_str(), X_OK) != 0 && ::stat(folder.c_str(), &info) == 0) {
      return absl::PermissionDeniedError(absl::StrCat(
          "permission denied on ", address, ": the folder ", folder, " (owner ", UserName(info.st_uid), ", group ",
          GroupName(info.st_gid), ", mode ", Mode(info.st_mode), ") is closed to you; ", JoinGroupFix(info.st_gid)));
    }
  }
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return absl::PermissionDeniedError(absl::StrCat("permission denied on ", address, ": ", std::strerror(errno)));
  return absl::PermissionDeniedError(absl::StrCat("permission denied on ", address, ": the socket belongs to user ",
                                                  UserName(info.st_uid), " and group ", GroupName(info.st_gid),
                                                  " with mode ", Mode(info.st_mode), "; ", JoinGroupFix(info.st_gid)));
}

// connect() to the unix socket at `path`: 0 when it answers, else errno.
int ConnectUnix(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) return ENAMETOOLONG;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  const int result = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 ? 0 : errno;
  ::close(fd);
  return result;
}

enum class Port { kOpen, kRefused, kUnknown };

// Whether anything accepts TCP connections at "host:port" ("[v6]:port"), within 2 s.
Port ProbeTcp(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return Port::kUnknown;
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || found == nullptr) return Port::kUnknown;
  Port result = Port::kUnknown;
  const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd >= 0) {
    int error = ::connect(fd, found->ai_addr, found->ai_addrlen) == 0 ? 0 : errno;
    if (error == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      socklen_t size = sizeof(error);
      error =
          ::poll(&p, 1, 2000) == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 ? error : ETIMEDOUT;
    }
    result = error == 0 ? Port::kOpen : error == ECONNREFUSED ? Port::kRefused : Port::kUnknown;
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return result;
}

bool Logged(const ConnectFailure& f, const char* text) {
  const std::string wanted = absl::AsciiStrToLower(text);
  for (const std::string& line : f.grpc_log)
    if (absl::StrContains(absl::AsciiStrToLower(line), wanted)) return true;
  return false;
}

std::string From(const ConnectFailure& f) { return f.source.empty() ? "" : " (from " + f.source + ")"; }

std::string StartOne(const std::string& address) {
  return absl::StrCat("start torchscand there (torchscand --state-dir DIR --listen ", address,
                      "), or leave out --daemon and TORCHSCAN_DAEMON to run a private one");
}

absl::Status DiagnoseUnix(const ConnectFailure& f) {
  const std::string path = f.address.substr(5);
  const int error = ConnectUnix(path);
  if (error == EACCES || error == EPERM) return SocketPermissionDenied(f.address, path);
  if (error == ENOENT)
    return absl::UnavailableError(absl::StrCat("no daemon answers at ", f.address, From(f), ": there is no socket at ",
                                               path, "; ", StartOne(f.address)));
  if (error == ECONNREFUSED)
    return absl::UnavailableError(absl::StrCat("no daemon answers at ", f.address, From(f), ": ", path,
                                               " is a socket nobody listens on (torchscand stopped?); ",
                                               StartOne(f.address)));
  return absl::UnavailableError(
      absl::StrCat("no daemon answers at ", f.address, From(f), ": ",
                   error == 0 ? "it accepts connections but does not answer gRPC" : std::strerror(error), "; ",
                   StartOne(f.address)));
}

absl::Status DiagnoseTls(const ConnectFailure& f) {
  const std::string lead = absl::StrCat("cannot connect to ", f.address, From(f), " over TLS: ");
  if (Logged(f, "Peer name") && Logged(f, "not in peer certificate")) {
    const std::string host = f.address.substr(0, f.address.rfind(':'));
    return absl::UnavailableError(
        absl::StrCat(lead, "wrong server name: the daemon's certificate does not name \"",
                     f.tls_server_name.empty() ? host : f.tls_server_name,
                     "\"; pass --tls-server-name with a name its certificate holds, or dial the daemon by that name"));
  }
  if (Logged(f, "certificate verify failed") || Logged(f, "CERTIFICATE_VERIFY_FAILED"))
    return absl::UnavailableError(absl::StrCat(lead, "wrong CA: the daemon's certificate is not signed by --tls-ca ",
                                               f.tls_ca_file,
                                               " (certificate verify failed); pass the CA certificate the daemon's "
                                               "admin handed out"));
  if (Logged(f, "WRONG_VERSION_NUMBER") || Logged(f, "wrong version number") || Logged(f, "packet length too long") ||
      Logged(f, "http request"))
    return absl::UnavailableError(absl::StrCat(lead, "plain TCP answered, not TLS: is ", f.address,
                                               " a torchscand? (a TCP torchscand always uses TLS) Check the port"));
  if (Logged(f, "certificate required") || (!f.client_certificate && Logged(f, "handshake failure")))
    return absl::UnavailableError(
        absl::StrCat(lead, "the daemon wants a client certificate (mutual TLS): pass ", "--tls-cert and --tls-key"));
  if (Logged(f, "bad certificate") || Logged(f, "unknown ca"))
    return absl::UnavailableError(
        absl::StrCat(lead, "the daemon refused your --tls-cert (it is not signed by a CA the daemon trusts)"));
  if (ProbeTcp(f.address) == Port::kRefused)
    return absl::UnavailableError(absl::StrCat("no daemon answers at ", f.address, From(f),
                                               ": nothing listens on that port (connection refused); ",
                                               StartOne(f.address)));
  // TLS 1.3 completes the client's side of the handshake before the server checks a client
  // certificate, so a mutual-TLS refusal leaves no trace here but the closed connection.
  if (!f.client_certificate)
    return absl::UnavailableError(absl::StrCat(
        lead,
        "the connection closed without an answer: a daemon with mutual TLS wants a client certificate (pass "
        "--tls-cert and --tls-key); otherwise check that --tls-ca ",
        f.tls_ca_file, " signed its certificate"));
  return absl::UnavailableError(absl::StrCat(
      lead,
      "the connection closed without an answer: the daemon may refuse your --tls-cert (it must be signed by a "
      "CA the daemon trusts); also check that --tls-ca ",
      f.tls_ca_file, " signed the daemon's certificate"));
}

absl::Status DiagnosePlainTcp(const ConnectFailure& f) {
  switch (ProbeTcp(f.address)) {
    case Port::kRefused:
      return absl::UnavailableError(absl::StrCat("no daemon answers at ", f.address, From(f),
                                                 ": nothing listens on that port (connection refused); ",
                                                 StartOne(f.address)));
    case Port::kOpen:
      return absl::UnavailableError(absl::StrCat(
          "cannot connect to ", f.address, From(f),
          " without TLS: something listens there but does not answer plain gRPC, and a TCP torchscand always uses "
          "TLS; pass --tls-ca with the CA of its certificate (and your --token-file)"));
    case Port::kUnknown: break;
  }
  return absl::UnavailableError(absl::StrCat("no daemon answers at ", f.address, From(f), ": ", StartOne(f.address),
                                             "; a TCP torchscand uses TLS: pass --tls-ca with its CA"));
}

}  // namespace

absl::Status ProbeUnixSocket(const ConnectFailure& failure) {
  if (!absl::StartsWith(failure.address, "unix:")) return absl::OkStatus();
  return ConnectUnix(failure.address.substr(5)) == 0 ? absl::OkStatus() : DiagnoseUnix(failure);
}

absl::Status DiagnoseConnectFailure(const ConnectFailure& failure) {
  if (absl::StartsWith(failure.address, "unix:")) return DiagnoseUnix(failure);
  if (!failure.tls_ca_file.empty()) return DiagnoseTls(failure);
  return DiagnosePlainTcp(failure);
}

}  // namespace torchscan
