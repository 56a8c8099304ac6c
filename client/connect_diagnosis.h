// Why a connection to a daemon failed, in words that lead with the likely cause and end with
// the fix. gRPC-free: it looks at the socket itself (a unix socket's permissions, whether a
// TCP port answers at all) and at the lines gRPC logged during the attempt (which the client
// captures instead of printing them).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace torchscan {

struct ConnectFailure {
  std::string address;                // as dialled: "unix:/path" or "host:port"
  std::string source;                 // where the address came from: "--daemon", "TORCHSCAN_DAEMON" ...
  std::string tls_ca_file;            // --tls-ca; empty: plain
  std::string tls_server_name;        // --tls-server-name; empty: the host
  bool client_certificate = false;    // --tls-cert given
  std::vector<std::string> grpc_log;  // gRPC's log lines during the attempt
};

// The status to report, never OK:
//   PermissionDenied (exit 5) for a unix socket the caller may not open: names the socket's
//     owner, group and mode (or the closed folder on the way) and the fix: join the group
//     (sudo usermod -aG GROUP USER, then log in again; or newgrp when already a member).
//   Unavailable (exit 4) otherwise, leading with the cause when one is recognised: no
//     socket at the path, a stale socket nobody listens on, a closed TCP port, a TLS daemon
//     dialled without --tls-ca, a wrong CA ("certificate verify failed"), a wrong server
//     name ("Peer name X is not in peer certificate"), plain TCP dialled with TLS, a daemon
//     wanting a client certificate or refusing ours (a TLS connection closed without an
//     answer, the trace mutual TLS leaves); else "no daemon answers at ADDR" with how to
//     start one.
absl::Status DiagnoseConnectFailure(const ConnectFailure& failure);

// Before dialling a unix socket ("unix:/path"): OK when a connect() to it succeeds, else
// DiagnoseConnectFailure's answer at once (no socket, a stale one, permission denied),
// instead of gRPC's retries until its deadline. OK for any other address.
absl::Status ProbeUnixSocket(const ConnectFailure& failure);

}  // namespace torchscan
