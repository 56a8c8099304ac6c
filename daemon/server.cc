#include "daemon/server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/config.h"

namespace torchscan::daemon {
namespace {

// True when a process accepts connections on the unix socket at `path`.
bool SocketAnswers(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  const bool answers = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  ::close(fd);
  return answers;
}

absl::Status PrepareUnixSocket(const std::string& field, const std::string& path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) return absl::OkStatus();
  if (!S_ISSOCK(info.st_mode))
    return absl::FailedPreconditionError(absl::StrCat(field, ": ", path, " exists and is not a socket; choose another path"));
  if (SocketAnswers(path)) {
    return absl::FailedPreconditionError(
        absl::StrCat(field, ": another process is listening on ", path, " (a running torchscand?); stop it first"));
  }
  ::unlink(path.c_str());  // stale: left by a daemon that was killed
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<DaemonServer>> DaemonServer::BuildAndStart(const v1::DaemonConfig& config) {
  std::unique_ptr<DaemonServer> server(new DaemonServer());
  absl::StatusOr<std::unique_ptr<Daemon>> daemon = Daemon::Open(config);
  if (!daemon.ok()) return daemon.status();
  server->daemon_ = *std::move(daemon);
  server->service_ = std::make_unique<TorchScanService>(server->daemon_.get());

  absl::StatusOr<mode_t> mode = ParseSocketMode(config.socket_mode());
  if (!mode.ok()) return mode.status();
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  std::vector<int> ports(config.listen_size(), 0);
  for (int i = 0; i < config.listen_size(); ++i) {
    if (std::optional<std::string> path = UnixSocketPath(config.listen(i))) {
      if (absl::Status s = PrepareUnixSocket(absl::StrCat("listen[", i, "]"), *path); !s.ok()) return s;
    }
    builder.AddListeningPort(config.listen(i), grpc::InsecureServerCredentials(), &ports[i]);
  }
  const int64_t max_message = config.limits().max_upload_bytes() + (int64_t{1} << 20);
  builder.SetMaxReceiveMessageSize(static_cast<int>(std::min<int64_t>(max_message, INT_MAX)));
  builder.RegisterService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr) {
    return absl::UnavailableError(absl::StrCat("listen: gRPC could not listen on every address (",
                                               absl::StrJoin(config.listen(), ", "),
                                               "); is an address in use or its folder missing?"));
  }
  for (int i = 0; i < config.listen_size(); ++i) {
    const std::string& address = config.listen(i);
    if (std::optional<std::string> path = UnixSocketPath(address)) {
      if (::chmod(path->c_str(), *mode) != 0) {
        return absl::InternalError(absl::StrCat("socket_mode: cannot chmod ", *path, " to ", config.socket_mode(), ": ",
                                                std::strerror(errno)));
      }
      server->addresses_.push_back(address);
    } else {
      const std::string host = address.substr(0, address.rfind(':'));
      server->addresses_.push_back(absl::StrCat(host, ":", ports[i]));
    }
    spdlog::info("listening on {}", server->addresses_.back());
  }
  server->daemon_->Start();
  return server;
}

DaemonServer::~DaemonServer() { Shutdown("torchscand stopped"); }

void DaemonServer::Shutdown(const std::string& reason) {
  if (shut_down_) return;
  shut_down_ = true;
  if (daemon_) daemon_->Shutdown(reason);
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

}  // namespace torchscan::daemon
