#include "daemon/service.h"

#include <algorithm>

#include "absl/strings/match.h"

namespace torchscan::daemon {
namespace {

template <typename T>
grpc::Status Reply(absl::StatusOr<T> result, T* response) {
  if (!result.ok()) return ToGrpcStatus(result.status());
  *response = *std::move(result);
  return grpc::Status::OK;
}

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

std::string SubmitterOf(const grpc::ServerContext& context) {
  const std::string peer = context.peer();
  const std::string base = peer.empty() || absl::StartsWith(peer, "unix:") ? "local" : peer;
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("torchscan-user");
  if (it == metadata.end()) return base;
  const std::string name(it->second.data(), it->second.size());
  if (name.empty() || name.size() > 64 || !std::all_of(name.begin(), name.end(), IsNameChar)) return base;
  return name + "@" + base;
}

grpc::Status TorchScanService::Submit(grpc::ServerContext* context, const v1::SubmitRequest* request,
                                      v1::Job* response) {
  return Reply(daemon_->Submit(*request, SubmitterOf(*context)), response);
}

grpc::Status TorchScanService::Watch(grpc::ServerContext* context, const v1::JobRequest* request,
                                     grpc::ServerWriter<v1::JobEvent>* writer) {
  WatchSink sink;
  sink.write = [writer](const v1::JobEvent& event) { return writer->Write(event); };
  sink.cancelled = [context] { return context->IsCancelled(); };
  return ToGrpcStatus(daemon_->Watch(*request, sink));
}

grpc::Status TorchScanService::GetJob(grpc::ServerContext*, const v1::JobRequest* request, v1::Job* response) {
  return Reply(daemon_->GetJob(*request), response);
}

grpc::Status TorchScanService::ListJobs(grpc::ServerContext*, const v1::ListJobsRequest* request,
                                        v1::ListJobsResponse* response) {
  return Reply(daemon_->ListJobs(*request), response);
}

grpc::Status TorchScanService::Cancel(grpc::ServerContext* context, const v1::JobRequest* request,
                                      v1::Job* response) {
  return Reply(daemon_->Cancel(*request, SubmitterOf(*context)), response);
}

grpc::Status TorchScanService::FetchResult(grpc::ServerContext*, const v1::JobRequest* request,
                                           v1::JobResult* response) {
  return Reply(daemon_->FetchResult(*request), response);
}

grpc::Status TorchScanService::Info(grpc::ServerContext*, const v1::InfoRequest* request, v1::DaemonInfo* response) {
  return Reply(daemon_->Info(*request), response);
}

}  // namespace torchscan::daemon
