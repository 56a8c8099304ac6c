// torchscand assembled: the Daemon (daemon.h) behind the gRPC service (service.h) on every
// listen address, with gRPC health checking and server reflection on. Unix sockets are
// accepted by torchscand itself (unix_socket_listener.h), which learns each caller's uid from
// the kernel, and get socket_mode and socket_group; TCP addresses listen with TLS (mutual when
// client_ca_file is set) and the service requires tokens from token_file there.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "daemon/daemon.h"
#include "daemon/peer_credentials.h"
#include "daemon/service.h"
#include "daemon/token_file.h"
#include "daemon/unix_socket_listener.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

class DaemonServer {
 public:
  // Opens the Daemon, refuses a unix socket path that a live process answers on (a stale
  // socket file left by a killed daemon is removed), listens on every address, chmods unix
  // sockets to socket_mode (and chowns them to socket_group) and starts the executor.
  // `config` must be valid (config.h). Errors: the Daemon's (state_dir), InvalidArgument
  // naming token_file, tls.* or admin_group when a file or the group cannot be loaded,
  // FailedPrecondition naming "listen[i]" for a socket in use or a path that is not a socket,
  // Unavailable when a socket cannot be bound or gRPC cannot listen (or rejects the
  // certificate), Internal when chmod or chown fails.
  static absl::StatusOr<std::unique_ptr<DaemonServer>> BuildAndStart(const v1::DaemonConfig& config);
  ~DaemonServer();  // Shutdown("torchscand stopped")

  // Stops accepting on unix sockets (their files are removed), Daemon::Shutdown(reason) (a
  // running job becomes interrupted, watches end), then the gRPC server (in-flight calls get
  // 2 s). Idempotent.
  void Shutdown(const std::string& reason);

  // The addresses listened on, TCP port 0 replaced by the port chosen.
  const std::vector<std::string>& addresses() const { return addresses_; }

 private:
  DaemonServer() = default;

  std::unique_ptr<TokenFileWatcher> tokens_;  // null without token_file
  std::unique_ptr<Daemon> daemon_;
  PeerTable peers_;  // credentials of unix-socket connections
  std::unique_ptr<TorchScanService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::vector<std::unique_ptr<UnixSocketListener>> listeners_;  // one per unix: address
  std::vector<std::string> addresses_;
  bool shut_down_ = false;
};

}  // namespace torchscan::daemon
