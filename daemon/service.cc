#include "daemon/service.h"

#include "daemon/access_rules.h"
#include "daemon/local_caller.h"

namespace torchscan::daemon {
namespace {

template <typename T>
grpc::Status Reply(absl::StatusOr<T> result, T* response) {
  if (!result.ok()) return ToGrpcStatus(result.status());
  *response = *std::move(result);
  return grpc::Status::OK;
}

std::string Metadata(const grpc::ServerContext& context, const char* key) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(key);
  return it == metadata.end() ? "" : std::string(it->second.data(), it->second.size());
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

absl::StatusOr<Caller> TorchScanService::Authenticate(const grpc::ServerContext& context) const {
  const std::string peer = context.peer();
  std::optional<Caller> local;
  if (DescriptorOfPeer(peer)) {  // a connection the unix-socket listener handed over
    const std::optional<PeerCredentials> credentials = peers_ ? peers_->Find(peer) : std::nullopt;
    if (!credentials) {
      return absl::UnauthenticatedError(
          "unix socket: torchscand cannot tell who this connection comes from (it has gone); connect again");
    }
    local = LocalCaller(*credentials, admin_gid_);
  }
  const std::shared_ptr<const TokenTable> tokens = tokens_ ? tokens_->Current() : nullptr;
  return IdentifyCaller(local, Metadata(context, "authorization"), tokens.get());
}

#define TORCHSCAN_AUTHENTICATE(context, caller)          \
  absl::StatusOr<Caller> caller = Authenticate(*(context)); \
  if (!caller.ok()) return ToGrpcStatus(caller.status())

grpc::Status TorchScanService::Submit(grpc::ServerContext* context, const v1::SubmitRequest* request,
                                      v1::Job* response) {
  TORCHSCAN_AUTHENTICATE(context, caller);
  return Reply(daemon_->Submit(*request, caller->user), response);
}

grpc::Status TorchScanService::Watch(grpc::ServerContext* context, const v1::JobRequest* request,
                                     grpc::ServerWriter<v1::JobEvent>* writer) {
  TORCHSCAN_AUTHENTICATE(context, caller);
  WatchSink sink;
  sink.write = [writer](const v1::JobEvent& event) { return writer->Write(event); };
  sink.cancelled = [context] { return context->IsCancelled(); };
  return ToGrpcStatus(daemon_->Watch(*request, sink));
}

grpc::Status TorchScanService::GetJob(grpc::ServerContext* context, const v1::JobRequest* request,
                                      v1::Job* response) {
  TORCHSCAN_AUTHENTICATE(context, caller);
  return Reply(daemon_->GetJob(*request), response);
}

grpc::Status TorchScanService::ListJobs(grpc::ServerContext* context, const v1::ListJobsRequest* request,
                                        v1::ListJobsResponse* response) {
  TORCHSCAN_AUTHENTICATE(context, caller);
  return Reply(daemon_->ListJobs(*request), response);
}

grpc::Status TorchScanService::Cancel(grpc::ServerContext* context, const v1::JobRequest* request,
                                      v1::Job* response) {
  TORCHSCAN_AUTHENTICATE(context, caller);
  return Reply(daemon_->Cancel(*request, *caller), response);
}

grpc::Status TorchScanService::FetchResult(grpc::ServerContext* context, const v1::JobRequest* request,
                                           v1::JobResult* response) {
  TORCHSCAN_AUTHENTICATE(context, caller);
  return Reply(daemon_->FetchResult(*request), response);
}

grpc::Status TorchScanService::Info(grpc::ServerContext* context, const v1::InfoRequest* request,
                                    v1::DaemonInfo* response) {
  TORCHSCAN_AUTHENTICATE(context, caller);
  return Reply(daemon_->Info(*request), response);
}

#undef TORCHSCAN_AUTHENTICATE

}  // namespace torchscan::daemon
