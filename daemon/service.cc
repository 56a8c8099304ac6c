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

std::string Metadata(const grpc::ServerContext& context, const char* key) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(key);
  return it == metadata.end() ? "" : std::string(it->second.data(), it->second.size());
}

// "local" or "NAME@local" for a unix-socket caller without a token.
std::string LocalName(const grpc::ServerContext& context) {
  const std::string name = Metadata(context, "torchscan-user");
  if (name.empty() || name.size() > 64 || !std::all_of(name.begin(), name.end(), IsNameChar)) return "local";
  return name + "@local";
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

absl::StatusOr<Caller> Authenticate(const grpc::ServerContext& context, const TokenTable* tokens) {
  const std::string peer = context.peer();
  const bool unix_socket = peer.empty() || absl::StartsWith(peer, "unix:");
  const std::string header = Metadata(context, "authorization");
  if (header.empty()) {
    if (unix_socket) return Caller{LocalName(context), false};
    return absl::UnauthenticatedError(
        "authorization: this daemon needs a bearer token on TCP; pass --token-file FILE or set TORCHSCAN_TOKEN "
        "(ask the daemon's admin for a token)");
  }
  const std::string_view token = BearerToken(header);
  if (token.empty())
    return absl::UnauthenticatedError("authorization: expected \"Bearer TOKEN\"; pass the token with --token-file");
  const Caller* caller = tokens == nullptr ? nullptr : tokens->Find(token);
  if (caller == nullptr) {
    return absl::UnauthenticatedError(
        "authorization: the token is not in the daemon's token_file; check --token-file or ask the admin for a "
        "token");
  }
  return *caller;
}

#define TORCHSCAN_AUTHENTICATE(context, caller)                                              \
  const std::shared_ptr<const TokenTable> caller##_tokens = tokens_ ? tokens_->Current() : nullptr; \
  absl::StatusOr<Caller> caller = Authenticate(*(context), caller##_tokens.get());            \
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
