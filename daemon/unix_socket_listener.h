// A unix socket that torchscand accepts on itself, so that it knows who every caller is: each
// accepted connection's kernel credentials (SO_PEERCRED) go into a PeerTable, then the
// descriptor is handed to the gRPC server (grpc::AddInsecureChannelFromFd), where the calls on
// it carry the peer name "fd:N" that the PeerTable maps back to those credentials. Every
// service the server has (TorchScan, health checking, reflection) answers on it as on a port
// gRPC listens on itself.
//
// The socket keeps the semantics of a gRPC unix: address: a stale socket file (left by a
// killed daemon) is replaced, a path a live process answers on or a file that is not a socket
// is refused, and the socket gets `mode` and `group` before it accepts anything.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "daemon/peer_credentials.h"

namespace torchscan::daemon {

class UnixSocketListener {
 public:
  // How the credentials of an accepted descriptor are read; tests pass fakes.
  using CredentialReader = std::function<absl::StatusOr<PeerCredentials>(int fd)>;

  // Binds `path`, chmods it to `mode`, chowns it to `group` (empty: the daemon's own) and
  // listens; nothing is accepted before Start(). `field` ("listen[0]") names the address in
  // errors: FailedPrecondition for a path a live process answers on or a file that is not a
  // socket, Unavailable when the socket cannot be bound (folder missing or closed, path too
  // long), Internal naming socket_mode or socket_group when chmod or chown fails. `peers`
  // must outlive the listener.
  static absl::StatusOr<std::unique_ptr<UnixSocketListener>> Open(const std::string& field, const std::string& path,
                                                                  mode_t mode, const std::string& group,
                                                                  PeerTable* peers,
                                                                  CredentialReader read = ReadPeerCredentials);
  ~UnixSocketListener();  // Stop()

  // Accepts connections on a thread of its own from now on: each one's credentials are
  // recorded in `peers`, then it is handed to `server` (started; it must outlive Stop()). A
  // connection whose credentials cannot be read is closed and logged. Once.
  void Start(grpc::Server* server);

  // Stops accepting (connections already handed over stay with the server), closes the socket
  // and removes its file unless another socket has replaced it. Idempotent.
  void Stop();

  const std::string& path() const { return path_; }

 private:
  UnixSocketListener(std::string path, int socket_fd, PeerTable* peers, CredentialReader read);
  void AcceptLoop(grpc::Server* server);

  const std::string path_;
  int socket_fd_ = -1;
  int stop_fd_ = -1;  // eventfd: written by Stop() to wake the accept loop
  dev_t device_ = 0;  // of the socket file, to leave a successor's file alone
  ino_t inode_ = 0;
  PeerTable* peers_;
  CredentialReader read_;
  std::thread thread_;
  bool stopped_ = false;
};

}  // namespace torchscan::daemon
