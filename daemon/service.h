// The TorchScan gRPC service: thin shells over Daemon (daemon.h). Each handler authenticates
// the caller, then converts the Daemon's absl::Status once, with ToGrpcStatus.
//
// Authentication (access_rules.h): a call may carry metadata "authorization: Bearer TOKEN".
// On TCP (which only listens with TLS) a token from the token file is required. On a unix
// socket (guarded by its mode and group) the caller is the login name of the uid the kernel
// reported for its connection (peer_credentials.h, local_caller.h); a token there must be
// the caller's own.
#pragma once

#include <sys/types.h>

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
  // service.
  TorchScanService(Daemon* daemon, TokenFileWatcher* tokens, const PeerTable* peers, std::optional<gid_t> admin_gid)
      : daemon_(daemon), tokens_(tokens), peers_(peers), admin_gid_(admin_gid) {}

  grpc::Status Submit(grpc::ServerContext* context, const v1::SubmitRequest* request, v1::Job* response) override;
  grpc::Status Watch(grpc::ServerContext* context, const v1::JobRequest* request,
                     grpc::ServerWriter<v1::JobEvent>* writer) override;
  grpc::Status GetJob(grpc::ServerContext* context, const v1::JobRequest* request, v1::Job* response) override;
  grpc::Status ListJobs(grpc::ServerContext* context, const v1::ListJobsRequest* request,
                        v1::ListJobsResponse* response) override;
  grpc::Status Cancel(grpc::ServerContext* context, const v1::JobRequest* request, v1::Job* response) override;
  grpc::Status FetchResult(grpc::ServerContext* context, const v1::JobRequest* request,
                           v1::JobResult* response) override;
  grpc::Status Info(grpc::ServerContext* context, const v1::InfoRequest* request, v1::DaemonInfo* response) override;

 private:
  // Who `context`'s call comes from (access_rules.h: IdentifyCaller).
  absl::StatusOr<Caller> Authenticate(const grpc::ServerContext& context) const;

  Daemon* daemon_;
  TokenFileWatcher* tokens_;
  const PeerTable* peers_;
  const std::optional<gid_t> admin_gid_;
};

}  // namespace torchscan::daemon
