// What every torchscan-client command shares: global flags and the way to reach a daemon
// (--daemon ADDR, or a private embedded daemon started on demand).
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "client/daemon_client.h"
#include "client/embedded_daemon.h"

namespace torchscan {

struct ClientContext {
  std::string daemon;       // --daemon ADDR; empty: start a private daemon for this command
  std::string torchscand;   // --torchscand PATH for the private daemon (see embedded_daemon.h)
  bool json = false;        // --json: machine-readable output on stdout
  bool color = false;       // --color: ANSI colours in summaries
  bool terminal = false;    // stderr is a terminal: live progress line
};

// A connection for one command. Owns the private daemon, when one was started.
struct Connection {
  std::unique_ptr<EmbeddedDaemon> embedded;  // declared first: destroyed last
  std::unique_ptr<DaemonClient> client;
};

// Connects to ctx.daemon, or starts a private daemon when it is empty.
absl::StatusOr<Connection> Connect(const ClientContext& ctx);

}  // namespace torchscan
