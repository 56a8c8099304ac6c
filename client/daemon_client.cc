#include "client/daemon_client.h"

#include <chrono>
#include <deque>
#include <mutex>
#include <set>

#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>

#include "client/connect_diagnosis.h"
#include "io/file_io.h"
#include "proto/service.grpc.pb.h"

namespace torchscan {
namespace {

// gRPC's own log lines ("E1130 ... ssl_transport_security.cc:1501] Handshake failed ...") are
// kept here instead of being printed before the client's own message; a failed connection
// reads them to name the likely cause (connect_diagnosis.h). Only the last kKeptLines stay.
class GrpcLog {
 public:
  static GrpcLog& Get() {
    static GrpcLog* log = new GrpcLog();  // never destroyed: gRPC may log during exit
    return *log;
  }
  // Routes gRPC's logging here, every severity (the handshake's reasons are debug lines).
  void Install() {
    std::call_once(installed_, [] {
      gpr_set_log_function(&GrpcLog::Capture);
      gpr_set_log_verbosity(GPR_LOG_SEVERITY_DEBUG);
    });
  }
  // A mark to take the lines logged after it.
  uint64_t Mark() {
    std::lock_guard<std::mutex> lock(mutex_);
    return total_;
  }
  std::vector<std::string> Since(uint64_t mark) {
    std::lock_guard<std::mutex> lock(mutex_);
    const uint64_t first = total_ - lines_.size();
    std::vector<std::string> out;
    for (uint64_t i = std::max(mark, first); i < total_; ++i) out.push_back(lines_[i - first]);
    return out;
  }

 private:
  static constexpr size_t kKeptLines = 200;
  static void Capture(gpr_log_func_args* args) {
    const std::string line = args->message == nullptr ? "" : args->message;
    // Only what can explain a failed connection; the rest (registrations, experiments) is noise.
    if (line.find("andshake") == std::string::npos && line.find("ertificate") == std::string::npos &&
        line.find("SSL") == std::string::npos)
      return;
    GrpcLog& log = Get();
    std::lock_guard<std::mutex> lock(log.mutex_);
    log.lines_.push_back(line);
    ++log.total_;
    if (log.lines_.size() > kKeptLines) log.lines_.pop_front();
  }
  std::once_flag installed_;
  std::mutex mutex_;
  std::deque<std::string> lines_;
  uint64_t total_ = 0;
};

absl::Status FromGrpc(const grpc::Status& s, const std::string& what, const std::string& address) {
  if (s.ok()) return absl::OkStatus();
  const auto code = static_cast<absl::StatusCode>(s.error_code());
  if (code == absl::StatusCode::kUnavailable)
    return absl::UnavailableError("no daemon answers at " + address + " (" + what + ": " + s.error_message() +
                                  "); start torchscand there, or omit --daemon to run a private one");
  return absl::Status(code, s.error_message());
}

}  // namespace

struct DaemonClient::Stub {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::TorchScan::Stub> stub;
  std::string authorization;  // "Bearer TOKEN" or empty
  // Watches in flight, cancelled by StopWatching (from another thread).
  std::mutex watches_mutex;
  std::set<grpc::ClientContext*> watches;
  bool stopped = false;

  // A context for one call, carrying the token.
  std::unique_ptr<grpc::ClientContext> NewContext() const {
    auto context = std::make_unique<grpc::ClientContext>();
    if (!authorization.empty()) context->AddMetadata("authorization", authorization);
    return context;
  }
};

namespace {

absl::StatusOr<std::string> ReadPem(const std::string& flag, const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return absl::InvalidArgumentError(flag + ": " + std::string(text.status().message()));
  return text;
}

// Channel credentials for `address`: TLS when a CA is given, else plain (unix sockets, or a
// TCP daemon that will refuse us with a message saying so).
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(const std::string& address,
                                                                             const DaemonCredentials& credentials,
                                                                             grpc::ChannelArguments* args) {
  const bool unix_socket = address.rfind("unix:", 0) == 0;
  if (credentials.tls_ca_file.empty()) {
    if (!credentials.token.empty() && !unix_socket)
      return absl::InvalidArgumentError("--token-file: refusing to send a token to " + address +
                                        " without TLS; pass --tls-ca with the CA of the daemon's certificate");
    if (!credentials.tls_cert_file.empty())
      return absl::InvalidArgumentError("--tls-cert: a client certificate needs TLS; pass --tls-ca too");
    return grpc::InsecureChannelCredentials();
  }
  if (unix_socket) return absl::InvalidArgumentError("--tls-ca: unix sockets do not use TLS; drop --tls-ca");
  if (credentials.tls_cert_file.empty() != credentials.tls_key_file.empty())
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together: give both for mutual TLS, or neither");
  grpc::SslCredentialsOptions options;
  absl::StatusOr<std::string> ca = ReadPem("--tls-ca", credentials.tls_ca_file);
  if (!ca.ok()) return ca.status();
  options.pem_root_certs = *ca;
  if (!credentials.tls_cert_file.empty()) {
    absl::StatusOr<std::string> cert = ReadPem("--tls-cert", credentials.tls_cert_file);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem("--tls-key", credentials.tls_key_file);
    if (!key.ok()) return key.status();
    options.pem_cert_chain = *cert;
    options.pem_private_key = *key;
  }
  if (!credentials.tls_server_name.empty()) args->SetSslTargetNameOverride(credentials.tls_server_name);
  return grpc::SslCredentials(options);
}

}  // namespace

std::string NormalizeDaemonAddress(const std::string& address) {
  if (address.rfind("unix:", 0) == 0) return address;
  if (!address.empty() && (address[0] == '/' || address[0] == '.')) return "unix:" + address;
  return address;
}

bool IsFinished(v1::Job::State state) {
  return state == v1::Job::succeeded || state == v1::Job::failed || state == v1::Job::cancelled ||
         state == v1::Job::interrupted;
}

DaemonClient::DaemonClient(std::string address, std::unique_ptr<Stub> stub)
    : address_(std::move(address)), stub_(std::move(stub)) {}
DaemonClient::~DaemonClient() = default;

absl::StatusOr<std::unique_ptr<DaemonClient>> DaemonClient::Connect(const std::string& raw_address,
                                                                    const DaemonCredentials& credentials,
                                                                    double timeout_s, const std::string& source) {
  GrpcLog::Get().Install();
  const std::string address = NormalizeDaemonAddress(raw_address);
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> channel_credentials =
      ChannelCredentials(address, credentials, &args);
  if (!channel_credentials.ok()) return channel_credentials.status();
  auto stub = std::make_unique<Stub>();
  if (!credentials.token.empty()) stub->authorization = "Bearer " + credentials.token;
  ConnectFailure failure;
  failure.address = address;
  failure.source = source;
  failure.tls_ca_file = credentials.tls_ca_file;
  failure.tls_server_name = credentials.tls_server_name;
  failure.client_certificate = !credentials.tls_cert_file.empty();
  if (absl::Status probed = ProbeUnixSocket(failure); !probed.ok()) return probed;
  const uint64_t mark = GrpcLog::Get().Mark();
  stub->channel = grpc::CreateCustomChannel(address, *channel_credentials, args);
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  if (!stub->channel->WaitForConnected(deadline)) {
    failure.grpc_log = GrpcLog::Get().Since(mark);
    return DiagnoseConnectFailure(failure);
  }
  stub->stub = v1::TorchScan::NewStub(stub->channel);
  return std::unique_ptr<DaemonClient>(new DaemonClient(address, std::move(stub)));
}

namespace {

// One unary call on the stub: a fresh context, the status mapped by FromGrpc.
template <typename Stub, typename Request, typename Response>
absl::StatusOr<Response> Unary(const Stub& stub,
                               grpc::Status (v1::TorchScan::Stub::*method)(grpc::ClientContext*, const Request&,
                                                                           Response*),
                               const Request& request, const char* what, const std::string& address) {
  Response response;
  std::unique_ptr<grpc::ClientContext> context = stub.NewContext();
  if (auto s = FromGrpc(((*stub.stub).*method)(context.get(), request, &response), what, address); !s.ok()) return s;
  return response;
}

v1::JobRequest ById(const std::string& id) {
  v1::JobRequest request;
  request.set_id(id);
  return request;
}

}  // namespace

absl::StatusOr<v1::Job> DaemonClient::Submit(const v1::JobSpec& spec) {
  // The request borrows `spec` rather than copying its uploaded files (two 13 MB modules
  // cost 0.17 s to copy on this VM's page faults): set without ownership, released before
  // the request is destroyed. Nothing here changes the request.
  v1::SubmitRequest request;
  request.unsafe_arena_set_allocated_spec(const_cast<v1::JobSpec*>(&spec));
  absl::StatusOr<v1::Job> job = Unary(*stub_, &v1::TorchScan::Stub::Submit, request, "submit", address_);
  request.unsafe_arena_release_spec();
  return job;
}

absl::StatusOr<v1::Job> DaemonClient::Watch(const std::string& id,
                                            const std::function<void(const v1::JobEvent&)>& on_event) {
  std::unique_ptr<grpc::ClientContext> context_owner = stub_->NewContext();
  grpc::ClientContext& context = *context_owner;
  {
    std::lock_guard<std::mutex> lock(stub_->watches_mutex);
    if (stub_->stopped) return absl::CancelledError("stopped waiting for job " + id);
    stub_->watches.insert(&context);
  }
  auto reader = stub_->stub->Watch(&context, ById(id));
  v1::JobEvent event;
  v1::Job last;
  bool any = false;
  while (reader->Read(&event)) {
    any = true;
    last = event.job();
    if (on_event) on_event(event);
    if (IsFinished(last.state())) {
      context.TryCancel();
      break;
    }
  }
  const grpc::Status status = reader->Finish();
  bool stopped;
  {
    std::lock_guard<std::mutex> lock(stub_->watches_mutex);
    stub_->watches.erase(&context);
    stopped = stub_->stopped;
  }
  if (any && IsFinished(last.state())) return last;
  if (stopped) return absl::CancelledError("stopped waiting for job " + id);
  if (auto s = FromGrpc(status, "watch", address_); !s.ok()) return s;
  return GetJob(id);
}

void DaemonClient::StopWatching() {
  std::lock_guard<std::mutex> lock(stub_->watches_mutex);
  stub_->stopped = true;
  for (grpc::ClientContext* context : stub_->watches) context->TryCancel();
}

absl::StatusOr<v1::Job> DaemonClient::GetJob(const std::string& id) {
  return Unary(*stub_, &v1::TorchScan::Stub::GetJob, ById(id), "get job", address_);
}

absl::StatusOr<v1::ListJobsResponse> DaemonClient::ListJobs(const v1::ListJobsRequest& request) {
  return Unary(*stub_, &v1::TorchScan::Stub::ListJobs, request, "list jobs", address_);
}

absl::StatusOr<v1::Job> DaemonClient::Cancel(const std::string& id) {
  return Unary(*stub_, &v1::TorchScan::Stub::Cancel, ById(id), "cancel", address_);
}

absl::StatusOr<v1::JobResult> DaemonClient::FetchResult(const std::string& id) {
  return Unary(*stub_, &v1::TorchScan::Stub::FetchResult, ById(id), "fetch", address_);
}

absl::StatusOr<v1::DaemonInfo> DaemonClient::Info() {
  return Unary(*stub_, &v1::TorchScan::Stub::Info, v1::InfoRequest(), "info", address_);
}

absl::StatusOr<v1::HistoryResponse> DaemonClient::History(const v1::HistoryRequest& request) {
  return Unary(*stub_, &v1::TorchScan::Stub::History, request, "history", address_);
}

}  // namespace torchscan
