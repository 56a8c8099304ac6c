// The TorchScan gRPC service: thin shells over Daemon (daemon.h). Each handler authenticates
// the caller, then converts the Daemon's absl::Status once, with ToGrpcStatus.
//
// Authentication: a call may carry metadata "authorization: Bearer TOKEN". On TCP (which only
// listens with TLS) a token from the token file is required: a missing or unknown token gets
// UNAUTHENTICATED before the request is looked at. On a unix socket (guarded by its mode and
// group) a token is optional: a valid one names the caller, an unknown one is refused.
#pragma once

#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/daemon.h"
#include "daemon/token_file.h"
#include "proto/service.grpc.pb.h"

namespace torchscan::daemon {

// The same code (absl and gRPC share the numbering) and message.
grpc::Status ToGrpcStatus(const absl::Status& status);

// Who is calling. With a valid bearer token: the token's user (and admin flag). Without one
// on a unix socket: "local", or "NAME@local" when the client sent metadata "torchscan-user:
// NAME" (letters, digits, ._-; at most 64; not verified, so it never matches a token user).
// Unauthenticated: an unknown token, or no token on TCP. `tokens` may be null (no token_file);
// it is the token file's contents as of this call (TokenFileWatcher::Current).
// The messages never contain the token.
absl::StatusOr<Caller> Authenticate(const grpc::ServerContext& context, const TokenTable* tokens);

class TorchScanService final : public v1::TorchScan::Service {
 public:
  // `tokens` may be null (no token_file); both must outlive the service.
  TorchScanService(Daemon* daemon, TokenFileWatcher* tokens) : daemon_(daemon), tokens_(tokens) {}

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
  Daemon* daemon_;
  TokenFileWatcher* tokens_;
};

}  // namespace torchscan::daemon
