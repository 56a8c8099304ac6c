// A real torchscand for a benchmark program, started the way torchscan-client starts its
// private daemon (client/embedded_daemon.h, the one place that knows how) but keeping a warm
// spare worker, as a resident daemon does: a private unix socket and state folder under /tmp,
// removed when it stops; as root, workers run as root
// (the default worker user, nobody, cannot execute bazel-bin under /root), so a README
// benchmark command runs as written, as root, from a fresh checkout. Plus a watchdog, so that
// a benchmark that hangs gives up instead of running forever.
//
// One daemon per process: these functions share it through process-wide state.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "client/daemon_client.h"
#include "client/embedded_daemon.h"

namespace torchscan::benchmarks {

// A resident daemon's options: a warm spare worker, as deployed.
inline EmbeddedDaemonOptions ResidentDaemonOptions() {
  EmbeddedDaemonOptions options;
  options.spare_worker = true;
  return options;
}

struct BenchmarkDaemon {
  int pid = 0;                           // torchscand's process id
  std::string address;                   // "unix:/tmp/torchscan-client-XXXXXX/torchscand.sock"
  std::unique_ptr<DaemonClient> client;  // connected to `address`
};

// Starts the torchscand at `daemon_path`, waits until it answers and connects a client. When
// `daemon_path` is not an executable file: prints to stderr how to build it and exits 2.
// When the daemon cannot start or does not answer within 30 s: gives up (below) with its
// last stderr lines. Starts the watchdog: after `give_up_after` the program gives up with
// "not finished after N s". `program` prefixes every message ("daemon_benchmark").
// `options` (client/embedded_daemon.h; its daemon_path is replaced by `daemon_path`): by
// default a resident daemon's, with a warm spare worker; prepare_state fills the state folder
// before the daemon starts.
BenchmarkDaemon StartBenchmarkDaemon(const std::string& program, const std::string& daemon_path,
                                     std::chrono::seconds give_up_after,
                                     EmbeddedDaemonOptions options = ResidentDaemonOptions());

// Stops the daemon (SIGTERM, SIGKILL after 10 s) and removes its folder; reset the client
// first. Does nothing when none runs.
void StopBenchmarkDaemon();

// Prints "<program>: giving up: <why>" to stderr, stops the daemon (if one runs) and exits 1.
// Safe from the watchdog thread.
[[noreturn]] void GiveUp(const std::string& why);

}  // namespace torchscan::benchmarks
