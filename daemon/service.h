// The TorchScan gRPC service: thin shells over Daemon (daemon.h). Each handler converts the
// Daemon's absl::Status once, with ToGrpcStatus; no logic lives here.
#pragma once

#include <string>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "daemon/daemon.h"
#include "proto/service.grpc.pb.h"

namespace torchscan::daemon {

// The same code (absl and gRPC share the numbering) and message.
grpc::Status ToGrpcStatus(const absl::Status& status);

// Who is calling: "local" on a unix socket (gRPC does not expose the peer's credentials
// there), the peer address ("ipv4:127.0.0.1:5555") on TCP. A client may add metadata
// "torchscan-user: NAME" (letters, digits, ._-; at most 64): "NAME@local". The name is not
// verified (authentication is issue 6).
std::string SubmitterOf(const grpc::ServerContext& context);

class TorchScanService final : public v1::TorchScan::Service {
 public:
  explicit TorchScanService(Daemon* daemon) : daemon_(daemon) {}

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
};

}  // namespace torchscan::daemon
