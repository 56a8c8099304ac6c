#include "client/client_context.h"

namespace torchscan {

absl::StatusOr<Connection> Connect(const ClientContext& ctx) {
  Connection c;
  std::string address = ctx.daemon;
  if (address.empty()) {
    EmbeddedDaemonOptions options;
    options.daemon_path = ctx.torchscand;
    absl::StatusOr<std::unique_ptr<EmbeddedDaemon>> embedded = EmbeddedDaemon::Start(options);
    if (!embedded.ok()) return embedded.status();
    c.embedded = *std::move(embedded);
    address = c.embedded->address();
  }
  absl::StatusOr<std::unique_ptr<DaemonClient>> client = DaemonClient::Connect(address);
  if (!client.ok()) return client.status();
  c.client = *std::move(client);
  return c;
}

}  // namespace torchscan
