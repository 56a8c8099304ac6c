#include "daemon/unix_socket_listener.h"

#include <grp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <grpcpp/server_posix.h>
#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace torchscan::daemon {
namespace {

sockaddr_un Address(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  return address;
}

// True when a process accepts connections on the unix socket at `path`.
bool SocketAnswers(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const sockaddr_un address = Address(path);
  const bool answers = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  ::close(fd);
  return answers;
}

absl::Status RemoveStaleSocket(const std::string& field, const std::string& path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) return absl::OkStatus();
  if (!S_ISSOCK(info.st_mode))
    return absl::FailedPreconditionError(
        absl::StrCat(field, ": ", path, " exists and is not a socket; choose another path"));
  if (SocketAnswers(path)) {
    return absl::FailedPreconditionError(
        absl::StrCat(field, ": another process is listening on ", path, " (a running torchscand?); stop it first"));
  }
  ::unlink(path.c_str());  // stale: left by a daemon that was killed
  return absl::OkStatus();
}

absl::Status SetPermissions(const std::string& path, mode_t mode, const std::string& group) {
  if (::chmod(path.c_str(), mode) != 0) {
    return absl::InternalError(
        absl::StrFormat("socket_mode: cannot chmod %s to %04o: %s", path, mode, std::strerror(errno)));
  }
  if (group.empty()) return absl::OkStatus();
  const struct group* found = ::getgrnam(group.c_str());
  if (found == nullptr || ::chown(path.c_str(), static_cast<uid_t>(-1), found->gr_gid) != 0) {
    return absl::InternalError(absl::StrCat("socket_group: cannot give ", path, " to group ", group, ": ",
                                            found == nullptr ? "no such group" : std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<UnixSocketListener>> UnixSocketListener::Open(const std::string& field,
                                                                             const std::string& path, mode_t mode,
                                                                             const std::string& group, PeerTable* peers,
                                                                             CredentialReader read) {
  if (absl::Status s = RemoveStaleSocket(field, path); !s.ok()) return s;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat(field, ": cannot create a unix socket: ", std::strerror(errno)));
  std::unique_ptr<UnixSocketListener> listener(new UnixSocketListener(path, fd, peers, std::move(read)));
  const sockaddr_un address = Address(path);
  if (path.size() >= sizeof(address.sun_path) ||
      ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    return absl::UnavailableError(
        absl::StrCat(field, ": cannot listen on unix:", path, ": ",
                     path.size() >= sizeof(address.sun_path) ? "path too long" : std::strerror(errno),
                     "; does its folder exist, and may torchscand write there?"));
  }
  struct stat info;
  if (::stat(path.c_str(), &info) == 0) {
    listener->device_ = info.st_dev;
    listener->inode_ = info.st_ino;
  }
  // Permissions before listen(): until then every connect() is refused.
  if (absl::Status s = SetPermissions(path, mode, group); !s.ok()) return s;
  if (::listen(fd, SOMAXCONN) != 0)
    return absl::UnavailableError(absl::StrCat(field, ": cannot listen on unix:", path, ": ", std::strerror(errno)));
  listener->stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (listener->stop_fd_ < 0)
    return absl::InternalError(absl::StrCat(field, ": cannot create an eventfd: ", std::strerror(errno)));
  return listener;
}

UnixSocketListener::UnixSocketListener(std::string path, int socket_fd, PeerTable* peers, CredentialReader read)
    : path_(std::move(path)), socket_fd_(socket_fd), peers_(peers), read_(std::move(read)) {}

UnixSocketListener::~UnixSocketListener() { Stop(); }

void UnixSocketListener::Start(grpc::Server* server) {
  if (thread_.joinable() || stopped_) return;
  thread_ = std::thread([this, server] { AcceptLoop(server); });
}

void UnixSocketListener::AcceptLoop(grpc::Server* server) {
  for (;;) {
    pollfd fds[2] = {{socket_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      spdlog::error("unix:{}: poll failed ({}); no longer accepting connections", path_, std::strerror(errno));
      return;
    }
    if (fds[1].revents != 0) return;
    const int fd = ::accept4(socket_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        spdlog::warn("unix:{}: cannot accept a connection ({}); retrying", path_, std::strerror(errno));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      continue;  // EAGAIN, ECONNABORTED, EINTR: the next one
    }
    absl::StatusOr<PeerCredentials> credentials = read_(fd);
    absl::Status recorded = credentials.ok() ? peers_->Record(fd, *credentials) : credentials.status();
    if (!recorded.ok()) {
      spdlog::warn("unix:{}: refused a connection: {}", path_, std::string(recorded.message()));
      ::close(fd);
      continue;
    }
    grpc::AddInsecureChannelFromFd(server, fd);  // gRPC owns fd from here
  }
}

void UnixSocketListener::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (thread_.joinable()) {
    const uint64_t one = 1;
    (void)!::write(stop_fd_, &one, sizeof(one));
    thread_.join();
  }
  if (socket_fd_ >= 0) ::close(socket_fd_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
  socket_fd_ = stop_fd_ = -1;
  struct stat info;
  if (inode_ != 0 && ::lstat(path_.c_str(), &info) == 0 && info.st_dev == device_ && info.st_ino == inode_)
    ::unlink(path_.c_str());
}

}  // namespace torchscan::daemon
