// The TorchScan gRPC service: thin shells over Daemon (daemon.h). Each handler authenticates
// the caller, reads its request, then converts the Daemon's absl::Status once, with
// ToGrpcStatus.
//
// Requests are read by the service itself, not by gRPC's generated handlers: those answer
// INTERNAL with an empty message when protobuf refuses a request (a string field that is not
// UTF-8), before any TorchScan code runs. Here every method receives its
// request's bytes (received_request.h), so that such a request is refused with
// INVALID_ARGUMENT naming the field, and a Submit over max_upload_bytes is refused from its
// size before it is parsed (RESOURCE_EXHAUSTED naming max_upload_bytes, for any request up
// to gRPC's receive limit: receive_limits.h). A call is authenticated before its request is
// read. The wire protocol is unchanged: clients call the same unary and server-streaming
// methods (gRPC's generated "streamed" handlers are how the service gets the bytes).
//
// Authentication (access_rules.h): a call may carry metadata "authorization: Bearer TOKEN".
// On TCP (which only listens with TLS) a token from the token file is required. On a unix
// socket (guarded by its mode and group) the caller is the login name of the uid the kernel
// reported for its connection (peer_credentials.h, local_caller.h); a token there must be
// the caller's own.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/daemon.h"
#include "daemon/peer_credentials.h"
#include "daemon/token_file.h"
#include "proto/service.grpc.pb.h"

namespace torchscan::daemon {

// The same code (absl and gRPC share the numbering) and message.
grpc::Status ToGrpcStatus(const absl::Status& status);

class TorchScanService final : public v1::TorchScan::Service {
 public:
  // `tokens` may be null (no token_file); `peers` holds the unix-socket connections' credentials
  // (null: no unix socket); `admin_gid` is admin_group's (nullopt: none). All must outlive the
  // service. Submit refuses requests over the daemon's max_upload_bytes.
  TorchScanService(Daemon* daemon, TokenFileWatcher* tokens, const PeerTable* peers, std::optional<gid_t> admin_gid);

 private:
  // Who `context`'s call comes from (access_rules.h: IdentifyCaller).
  absl::StatusOr<Caller> Authenticate(const grpc::ServerContext& context) const;

  // Serves the unary `method` of service.proto: authenticates, reads the request's bytes,
  // refuses them when `check_size` (if set) does, parses them, calls `handle`.
  template <typename Request, typename Response>
  void ServeUnary(const char* method, std::function<absl::Status(int64_t)> check_size,
                  std::function<absl::StatusOr<Response>(const Request&, const Caller&)> handle);
  // Watch, the server-streaming method, read the same way.
  void ServeWatch();

  Daemon* daemon_;
  TokenFileWatcher* tokens_;
  const PeerTable* peers_;
  const std::optional<gid_t> admin_gid_;
};

}  // namespace torchscan::daemon
