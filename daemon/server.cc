#include "daemon/server.h"

#include <grp.h>

#include <chrono>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/resource_quota.h>
#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/config.h"
#include "daemon/receive_limits.h"
#include "io/file_io.h"

namespace torchscan::daemon {
namespace {

// TLS server credentials from the PEM files of `tls` (which validation checked exist).
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> TlsCredentials(const v1::TlsConfig& tls) {
  grpc::SslServerCredentialsOptions options;
  absl::StatusOr<std::string> cert = ReadFile(tls.cert_file());
  if (!cert.ok()) return absl::InvalidArgumentError(absl::StrCat("tls.cert_file: ", cert.status().message()));
  absl::StatusOr<std::string> key = ReadFile(tls.key_file());
  if (!key.ok()) return absl::InvalidArgumentError(absl::StrCat("tls.key_file: ", key.status().message()));
  options.pem_key_cert_pairs.push_back({*key, *cert});
  if (!tls.client_ca_file().empty()) {
    absl::StatusOr<std::string> ca = ReadFile(tls.client_ca_file());
    if (!ca.ok()) return absl::InvalidArgumentError(absl::StrCat("tls.client_ca_file: ", ca.status().message()));
    options.pem_root_certs = *ca;
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

// The gid of `admin_group`; nullopt when it is empty; an error naming the field when no such group exists.
absl::StatusOr<std::optional<gid_t>> AdminGid(const std::string& admin_group) {
  if (admin_group.empty()) return std::nullopt;
  const group* found = ::getgrnam(admin_group.c_str());
  if (found == nullptr)
    return absl::InvalidArgumentError(
        absl::StrCat("admin_group: no group named \"", admin_group, "\"; create it (groupadd ", admin_group, ")"));
  return found->gr_gid;
}

// Where callers reach `address`: a unix socket as configured, a TCP address with the port gRPC
// bound (the real one when the configuration asked for port 0).
std::string BoundAddress(const std::string& address, int port) {
  if (UnixSocketPath(address)) return address;
  return absl::StrCat(address.substr(0, address.rfind(':')), ":", port);
}

}  // namespace

absl::StatusOr<std::unique_ptr<DaemonServer>> DaemonServer::BuildAndStart(const v1::DaemonConfig& config) {
  std::unique_ptr<DaemonServer> server(new DaemonServer());
  if (!config.token_file().empty()) {
    absl::StatusOr<std::unique_ptr<TokenFileWatcher>> tokens = TokenFileWatcher::Open(config.token_file());
    if (!tokens.ok()) return tokens.status();
    server->tokens_ = *std::move(tokens);
    spdlog::info("loaded {} tokens from {} (edits are picked up without a restart)", server->tokens_->Current()->size(),
                 config.token_file());
  }
  std::shared_ptr<grpc::ServerCredentials> tls = grpc::InsecureServerCredentials();
  if (!config.tls().cert_file().empty()) {
    absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials = TlsCredentials(config.tls());
    if (!credentials.ok()) return credentials.status();
    tls = *credentials;
  }
  absl::StatusOr<std::optional<gid_t>> admin_gid = AdminGid(config.admin_group());
  if (!admin_gid.ok()) return admin_gid.status();
  absl::StatusOr<std::unique_ptr<Daemon>> daemon = Daemon::Open(config);
  if (!daemon.ok()) return daemon.status();
  server->daemon_ = *std::move(daemon);
  server->service_ =
      std::make_unique<TorchScanService>(server->daemon_.get(), server->tokens_.get(), &server->peers_, *admin_gid);

  absl::StatusOr<mode_t> mode = ParseSocketMode(config.socket_mode());
  if (!mode.ok()) return mode.status();
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT by default: a second daemon on the same TCP port would start, and
  // the kernel would split the callers between the two. Off, the second one fails "in use".
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  std::vector<int> ports(config.listen_size(), 0);
  for (int i = 0; i < config.listen_size(); ++i) {
    if (std::optional<std::string> path = UnixSocketPath(config.listen(i))) {
      // torchscand accepts here itself, to learn each caller's uid (unix_socket_listener.h).
      absl::StatusOr<std::unique_ptr<UnixSocketListener>> listener = UnixSocketListener::Open(
          absl::StrCat("listen[", i, "]"), *path, *mode, config.socket_group(), &server->peers_);
      if (!listener.ok()) return listener.status();
      server->listeners_.push_back(*std::move(listener));
      continue;
    }
    // Validation guarantees TLS (and tokens) for every TCP address.
    builder.AddListeningPort(config.listen(i), tls, &ports[i]);
  }
  // What a caller can make the daemon hold, and why these two bounds: receive_limits.h.
  builder.SetMaxReceiveMessageSize(GrpcReceiveLimit(config.limits().max_upload_bytes()));
  grpc::ResourceQuota quota("torchscand");
  quota.Resize(static_cast<size_t>(GrpcMemoryQuota(config.limits().max_upload_bytes())));
  builder.SetResourceQuota(quota);
  builder.RegisterService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr) {
    std::vector<std::string> tcp;
    for (const std::string& address : config.listen())
      if (!UnixSocketPath(address)) tcp.push_back(address);
    return absl::UnavailableError(absl::StrCat("listen: gRPC could not listen on every TCP address (",
                                               absl::StrJoin(tcp, ", "),
                                               "); is an address in use, or the TLS certificate and key not a "
                                               "pair?"));
  }
  for (const std::unique_ptr<UnixSocketListener>& listener : server->listeners_) listener->Start(server->server_.get());
  for (int i = 0; i < config.listen_size(); ++i) {
    const std::string& address = config.listen(i);
    server->addresses_.push_back(BoundAddress(address, ports[i]));
    const bool is_tcp = !UnixSocketPath(address).has_value();
    spdlog::info("listening on {}{}", server->addresses_.back(),
                 !is_tcp                                 ? " (callers known by their uid)"
                 : config.tls().client_ca_file().empty() ? " (TLS, bearer tokens)"
                                                         : " (mutual TLS, bearer tokens)");
  }
  server->daemon_->Start();
  return server;
}

DaemonServer::~DaemonServer() { Shutdown("torchscand stopped"); }

void DaemonServer::Shutdown(const std::string& reason) {
  if (shut_down_) return;
  shut_down_ = true;
  for (const std::unique_ptr<UnixSocketListener>& listener : listeners_) listener->Stop();
  if (daemon_) daemon_->Shutdown(reason);
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

}  // namespace torchscan::daemon
