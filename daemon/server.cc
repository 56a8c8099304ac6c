#include "daemon/server.h"

#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/config.h"
#include "report/json_io.h"

namespace torchscan::daemon {
namespace {

// True when a process accepts connections on the unix socket at `path`.
bool SocketAnswers(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  const bool answers = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  ::close(fd);
  return answers;
}

absl::Status PrepareUnixSocket(const std::string& field, const std::string& path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) return absl::OkStatus();
  if (!S_ISSOCK(info.st_mode))
    return absl::FailedPreconditionError(absl::StrCat(field, ": ", path, " exists and is not a socket; choose another path"));
  if (SocketAnswers(path)) {
    return absl::FailedPreconditionError(
        absl::StrCat(field, ": another process is listening on ", path, " (a running torchscand?); stop it first"));
  }
  ::unlink(path.c_str());  // stale: left by a daemon that was killed
  return absl::OkStatus();
}

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

absl::Status SetSocketPermissions(const std::string& path, mode_t mode, const v1::DaemonConfig& config) {
  if (::chmod(path.c_str(), mode) != 0) {
    return absl::InternalError(
        absl::StrCat("socket_mode: cannot chmod ", path, " to ", config.socket_mode(), ": ", std::strerror(errno)));
  }
  if (config.socket_group().empty()) return absl::OkStatus();
  const group* found = ::getgrnam(config.socket_group().c_str());
  if (found == nullptr || ::chown(path.c_str(), static_cast<uid_t>(-1), found->gr_gid) != 0) {
    return absl::InternalError(absl::StrCat("socket_group: cannot give ", path, " to group ", config.socket_group(),
                                            ": ", found == nullptr ? "no such group" : std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<DaemonServer>> DaemonServer::BuildAndStart(const v1::DaemonConfig& config) {
  std::unique_ptr<DaemonServer> server(new DaemonServer());
  if (!config.token_file().empty()) {
    absl::StatusOr<std::unique_ptr<TokenFileWatcher>> tokens = TokenFileWatcher::Open(config.token_file());
    if (!tokens.ok()) return tokens.status();
    server->tokens_ = *std::move(tokens);
    spdlog::info("loaded {} tokens from {} (edits are picked up without a restart)",
                 server->tokens_->Current()->size(), config.token_file());
  }
  std::shared_ptr<grpc::ServerCredentials> tls = grpc::InsecureServerCredentials();
  if (!config.tls().cert_file().empty()) {
    absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials = TlsCredentials(config.tls());
    if (!credentials.ok()) return credentials.status();
    tls = *credentials;
  }
  absl::StatusOr<std::unique_ptr<Daemon>> daemon = Daemon::Open(config);
  if (!daemon.ok()) return daemon.status();
  server->daemon_ = *std::move(daemon);
  server->service_ = std::make_unique<TorchScanService>(server->daemon_.get(), server->tokens_.get());

  absl::StatusOr<mode_t> mode = ParseSocketMode(config.socket_mode());
  if (!mode.ok()) return mode.status();
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  std::vector<int> ports(config.listen_size(), 0);
  for (int i = 0; i < config.listen_size(); ++i) {
    std::optional<std::string> path = UnixSocketPath(config.listen(i));
    if (path) {
      if (absl::Status s = PrepareUnixSocket(absl::StrCat("listen[", i, "]"), *path); !s.ok()) return s;
    }
    // Validation guarantees TLS (and tokens) for every TCP address.
    builder.AddListeningPort(config.listen(i), path ? grpc::InsecureServerCredentials() : tls, &ports[i]);
  }
  const int64_t max_message = config.limits().max_upload_bytes() + (int64_t{1} << 20);
  builder.SetMaxReceiveMessageSize(static_cast<int>(std::min<int64_t>(max_message, INT_MAX)));
  builder.RegisterService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr) {
    return absl::UnavailableError(absl::StrCat("listen: gRPC could not listen on every address (",
                                               absl::StrJoin(config.listen(), ", "),
                                               "); is an address in use, its folder missing, or the TLS "
                                               "certificate and key not a pair?"));
  }
  for (int i = 0; i < config.listen_size(); ++i) {
    const std::string& address = config.listen(i);
    if (std::optional<std::string> path = UnixSocketPath(address)) {
      if (absl::Status s = SetSocketPermissions(*path, *mode, config); !s.ok()) return s;
      server->addresses_.push_back(address);
    } else {
      const std::string host = address.substr(0, address.rfind(':'));
      server->addresses_.push_back(absl::StrCat(host, ":", ports[i]));
    }
    const bool is_tcp = !UnixSocketPath(address).has_value();
    spdlog::info("listening on {}{}", server->addresses_.back(),
                 !is_tcp ? "" : config.tls().client_ca_file().empty() ? " (TLS, bearer tokens)" : " (mutual TLS, bearer tokens)");
  }
  server->daemon_->Start();
  return server;
}

DaemonServer::~DaemonServer() { Shutdown("torchscand stopped"); }

void DaemonServer::Shutdown(const std::string& reason) {
  if (shut_down_) return;
  shut_down_ = true;
  if (daemon_) daemon_->Shutdown(reason);
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

}  // namespace torchscan::daemon
