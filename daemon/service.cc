#include "daemon/service.h"

#include <cstdio>
#include <cstdlib>

#include "daemon/access_rules.h"
#include "daemon/local_caller.h"
#include "daemon/received_request.h"
#include "spec/job_spec.h"

namespace torchscan::daemon {
namespace {

std::string Metadata(const grpc::ServerContext& context, const char* key) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(key);
  return it == metadata.end() ? "" : std::string(it->second.data(), it->second.size());
}

// The index gRPC's generated Service gave `method`: it adds the methods in service.proto's
// order, which is the descriptor's.
int MethodIndex(const char* method) {
  const google::protobuf::MethodDescriptor* found =
      v1::SubmitRequest::descriptor()->file()->FindServiceByName("TorchScan")->FindMethodByName(method);
  if (found == nullptr) {  // our own mistake, never the caller's
    std::fprintf(stderr, "torchscand: service.proto has no method TorchScan.%s\n", method);
    std::abort();
  }
  return found->index();
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

namespace {

// The caller, then the request of a call whose `stream` has one request message to read.
// `received` keeps the request's bytes until the call ends, counted in gRPC's memory quota
// (receive_limits.h).
template <typename Stream, typename Request>
absl::Status Receive(Stream& stream, const std::function<absl::Status(int64_t)>& check_size, grpc::ByteBuffer* received,
                     Request* request) {
  if (!stream.Read(received)) return absl::InvalidArgumentError("request: the call carried no request message");
  if (check_size)
    if (absl::Status s = check_size(static_cast<int64_t>(received->Length())); !s.ok()) return s;
  return ParseReceived(*received, request);
}

}  // namespace

template <typename Request, typename Response>
void TorchScanService::ServeUnary(const char* method, std::function<absl::Status(int64_t)> check_size,
                                  std::function<absl::StatusOr<Response>(const Request&, const Caller&)> handle) {
  MarkMethodStreamed(MethodIndex(method),
                     new grpc::internal::StreamedUnaryHandler<grpc::ByteBuffer, Response>(
                         [this, check_size, handle](grpc::ServerContext* context,
                                                    grpc::ServerUnaryStreamer<grpc::ByteBuffer, Response>* stream) {
                           const absl::StatusOr<Caller> caller = Authenticate(*context);
                           if (!caller.ok()) return ToGrpcStatus(caller.status());
                           grpc::ByteBuffer received;
                           Request request;
                           if (absl::Status s = Receive(*stream, check_size, &received, &request); !s.ok())
                             return ToGrpcStatus(s);
                           absl::StatusOr<Response> response = handle(request, *caller);
                           if (!response.ok()) return ToGrpcStatus(response.status());
                           stream->Write(*response);
                           return grpc::Status::OK;
                         }));
}

void TorchScanService::ServeWatch() {
  MarkMethodStreamed(
      MethodIndex("Watch"),
      new grpc::internal::SplitServerStreamingHandler<grpc::ByteBuffer, v1::JobEvent>(
          [this](grpc::ServerContext* context, grpc::ServerSplitStreamer<grpc::ByteBuffer, v1::JobEvent>* stream) {
            const absl::StatusOr<Caller> caller = Authenticate(*context);
            if (!caller.ok()) return ToGrpcStatus(caller.status());
            grpc::ByteBuffer received;
            v1::JobRequest request;
            if (absl::Status s = Receive(*stream, nullptr, &received, &request); !s.ok()) return ToGrpcStatus(s);
            WatchSink sink;
            sink.write = [stream](const v1::JobEvent& event) { return stream->Write(event); };
            sink.cancelled = [context] { return context->IsCancelled(); };
            return ToGrpcStatus(daemon_->Watch(request, *caller, sink));
          }));
}

TorchScanService::TorchScanService(Daemon* daemon, TokenFileWatcher* tokens, const PeerTable* peers,
                                   std::optional<gid_t> admin_gid)
    : daemon_(daemon), tokens_(tokens), peers_(peers), admin_gid_(admin_gid) {
  const int64_t max_upload_bytes = daemon_->config().limits().max_upload_bytes();
  ServeUnary<v1::SubmitRequest, v1::Job>(
      "Submit", [max_upload_bytes](int64_t bytes) { return spec::CheckSubmitRequestSize(bytes, max_upload_bytes); },
      [this](const v1::SubmitRequest& request, const Caller& caller) { return daemon_->Submit(request, caller.user); });
  ServeWatch();
  ServeUnary<v1::JobRequest, v1::Job>("GetJob", nullptr, [this](const v1::JobRequest& request, const Caller& caller) {
    return daemon_->GetJob(request, caller);
  });
  ServeUnary<v1::ListJobsRequest, v1::ListJobsResponse>(
      "ListJobs", nullptr,
      [this](const v1::ListJobsRequest& request, const Caller& caller) { return daemon_->ListJobs(request, caller); });
  ServeUnary<v1::HistoryRequest, v1::HistoryResponse>(
      "History", nullptr,
      [this](const v1::HistoryRequest& request, const Caller& caller) { return daemon_->History(request, caller); });
  ServeUnary<v1::JobRequest, v1::Job>("Cancel", nullptr, [this](const v1::JobRequest& request, const Caller& caller) {
    return daemon_->Cancel(request, caller);
  });
  ServeUnary<v1::JobRequest, v1::JobResult>(
      "FetchResult", nullptr,
      [this](const v1::JobRequest& request, const Caller& caller) { return daemon_->FetchResult(request, caller); });
  ServeUnary<v1::InfoRequest, v1::DaemonInfo>(
      "Info", nullptr,
      [this](const v1::InfoRequest& request, const Caller& caller) { return daemon_->Info(request, caller); });
}

}  // namespace torchscan::daemon
