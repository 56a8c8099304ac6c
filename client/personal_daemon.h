// A personal resident daemon: one user's own torchscand, started by `torchscan-client daemon
// start` and kept until `daemon stop` (or a reboot), so that `history` and `jobs` work for one
// user without systemd. It lives in PersonalDaemonFolder() (its state, pid file, log, and the
// file torchscand.address naming its socket: in the folder, or under /tmp when that path is
// too long for a unix socket), runs the user's jobs as the user with no sandbox (its only user is the one who
// started it), keeps a warm spare worker, and answers on a unix socket only its user can reach
// (the folder is 0700). While it runs, every client that is given no --daemon nor
// $TORCHSCAN_DAEMON uses it (ResolveClientContext; the Python package does the same), so its
// results stay in its history instead of a private daemon's, which is removed after each
// command.
#pragma once

#include <optional>
#include <string>

namespace torchscan {

// $XDG_STATE_HOME/torchscan, else $HOME/.local/state/torchscan.
std::string PersonalDaemonFolder();

// The address of the personal daemon when it runs (its pid file names a live torchscand and
// the socket its address file names exists); nullopt otherwise. Cheap: no connection is made.
std::optional<std::string> RunningPersonalDaemon();

// `daemon start|stop|status`: start (exit 0; also when it already runs: says so), stop
// (SIGTERM, then waits up to 15 s; exit 0 also when none ran), status (exit 0 when it runs,
// 4 when it does not). Each prints what it did and the address, state folder and log.
// `torchscand`: --torchscand PATH (empty: found as embedded_daemon.h FindDaemonBinary finds it).
int DaemonCommand(const std::string& torchscand, const std::string& action);

}  // namespace torchscan
