// What every torchscan-client command shares: global flags and the way to reach daemons
// (--daemon ADDR, repeatable, --daemons-file FILE, or a private embedded daemon started on
// demand), with the credentials a TCP daemon needs.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/daemon_client.h"
#include "client/embedded_daemon.h"

namespace torchscan {

struct ClientContext {
  std::vector<std::string> daemons;  // --daemon ADDR (repeatable); none: a private daemon
  std::string daemons_file;          // --daemons-file FILE: one address per line ('#' comments)
  std::string torchscand;            // --torchscand PATH for the private daemon (see embedded_daemon.h)
  std::string token_file;            // --token-file FILE: the bearer token (else $TORCHSCAN_TOKEN)
  DaemonCredentials credentials;     // --tls-ca, --tls-cert, --tls-key, --tls-server-name; token filled
                                     // by ResolveClientContext
  bool json = false;                 // --json: machine-readable output on stdout
  bool color = false;                // --color: ANSI colours in summaries
  bool terminal = false;             // stderr is a terminal: live progress line
};

// Completes ctx after flag parsing: reads the token (the first non-empty, non-'#' line of
// --token-file, else $TORCHSCAN_TOKEN) and appends the addresses of --daemons-file.
// InvalidArgument naming --token-file / --daemons-file for an unreadable or empty file, a
// token file others can read, or a daemons file with no address.
absl::Status ResolveClientContext(ClientContext* ctx);

// A connection for one command. Owns the private daemon, when one was started.
struct Connection {
  std::unique_ptr<EmbeddedDaemon> embedded;  // declared first: destroyed last
  std::unique_ptr<DaemonClient> client;
};

// Connects to the one daemon of ctx, or starts a private daemon when none is given.
// InvalidArgument naming --daemon when several are given (only job commands fan out).
absl::StatusOr<Connection> Connect(const ClientContext& ctx);

// Connects to `address` with ctx's credentials.
absl::StatusOr<Connection> ConnectTo(const ClientContext& ctx, const std::string& address);

}  // namespace torchscan
