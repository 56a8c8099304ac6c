// What every torchscan-client command shares: global flags and the way to reach daemons
// (--daemon ADDR, repeatable, --daemons-file FILE, $TORCHSCAN_DAEMON, the personal daemon, or
// a private embedded daemon started on demand), with the credentials a TCP daemon needs.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/daemon_client.h"
#include "client/embedded_daemon.h"
#include "client/verdict_gate.h"

namespace torchscan {

struct ClientContext {
  std::vector<std::string> daemons;  // --daemon ADDR (repeatable), else $TORCHSCAN_DAEMON; none: a private daemon
  std::string daemons_file;          // --daemons-file FILE: one address per line ('#' comments)
  std::string daemons_source;        // where `daemons` came from: "--daemon", "--daemons-file", "TORCHSCAN_DAEMON"
  std::string torchscand;            // --torchscand PATH for the private daemon (see embedded_daemon.h)
  std::string token_file;            // --token-file FILE: the bearer token (else $TORCHSCAN_TOKEN)
  DaemonCredentials credentials;     // --tls-ca, --tls-cert, --tls-key, --tls-server-name; token filled
                                     // by ResolveClientContext
  bool json = false;                 // --json: machine-readable output on stdout
  bool color = false;                // --color: ANSI colours in summaries
  bool terminal = false;             // stderr is a terminal: live progress line
  bool unicode = false;              // the locale is UTF-8 (IsUtf8Locale): box and block characters
  GateOptions gate;                  // --fail-on / --gate-on of compare and compare-reports (verdict_gate.h)
};

// Whether text output may use non-ASCII characters (a sparkline's blocks): the locale that
// sets the character type, the first non-empty of LC_ALL, LC_CTYPE and LANG (any may be
// null), names UTF-8 ("C.UTF-8", "en_US.utf8"). None set: false (the C locale is ASCII).
bool IsUtf8Locale(const char* lc_all, const char* lc_ctype, const char* lang);

// Completes ctx after flag parsing. Daemons: --daemon and --daemons-file (together) win over
// $TORCHSCAN_DAEMON (one address), which wins over the personal daemon while it runs
// (client/personal_daemon.h), which wins over a private daemon. Token: --token-file,
// else $TORCHSCAN_TOKEN; either holds the bare token or the admin's token line "USER TOKEN"
// (or "USER TOKEN admin"), '#' comment lines and blank lines aside. InvalidArgument naming
// --token-file / TORCHSCAN_TOKEN / --daemons-file for an unreadable or empty file, a token
// file others can read, a file with several token lines (whose token would be sent?) or a
// line of another shape, or a daemons file with no address.
absl::Status ResolveClientContext(ClientContext* ctx);

// The token in the text of a token file (or $TORCHSCAN_TOKEN), per ResolveClientContext;
// `source` names it in errors ("--token-file FILE").
absl::StatusOr<std::string> TokenFromText(const std::string& text, const std::string& source);

// A connection for one command. Owns the private daemon, when one was started.
struct Connection {
  std::unique_ptr<EmbeddedDaemon> embedded;  // declared first: destroyed last
  std::unique_ptr<DaemonClient> client;
  bool private_daemon() const { return embedded != nullptr; }
};

// Connects to the one daemon of ctx, or starts a private daemon when none is given.
// InvalidArgument naming --daemon when several are given (only job commands fan out).
absl::StatusOr<Connection> Connect(const ClientContext& ctx);

// For commands about a resident daemon's jobs (`jobs list` ...): like Connect, but with no
// daemon given InvalidArgument "<command>: no resident daemon was given ..." saying how to
// give one (--daemon, TORCHSCAN_DAEMON), instead of asking an empty private daemon.
absl::StatusOr<Connection> ConnectResident(const ClientContext& ctx, const std::string& command);

// Connects to `address` with ctx's credentials.
absl::StatusOr<Connection> ConnectTo(const ClientContext& ctx, const std::string& address);

}  // namespace torchscan
