// torchscand: the per-machine TorchScan daemon. Flags or --config FILE (flags win) become a
// validated DaemonConfig; then the server runs until SIGTERM or SIGINT, which stop it
// cleanly (a running job is recorded interrupted). Exit codes: 0 stopped cleanly (or
// --check-config passed), 1 start-up failed (state_dir, listen), 2 bad flags or configuration.
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>

#include <iostream>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "daemon/config.h"
#include "daemon/config_flags.h"
#include "daemon/server.h"
#include "io/proto_json.h"
#include "process/exit_status.h"

int main(int argc, char** argv) {
  // Two malloc arenas, before any thread starts, not glibc's eight per core: each gRPC thread
  // otherwise took an arena of its own, and what a request freed there stayed there. Under the
  // hour's soak (benchmarks/soak_benchmark.py) the last daemon held 37.8-49.1 MiB after its
  // tenth minute, rising 10 MiB an hour, with the default; 24.0-27.8 MiB, 5.5 an hour, with
  // two (MALLOC_ARENA_MAX=2, --seed 27).
  ::mallopt(M_ARENA_MAX, 2);
  namespace d = torchscan::daemon;
  d::ConfigFlags flags;
  bool check_config = false;
  CLI::App app{"torchscand: runs TorchScan benchmark jobs one at a time, each in a fresh worker"};
  d::AddConfigFlags(&app, &flags);
  app.add_flag("--check-config", check_config, "validate, print the effective configuration JSON and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  absl::StatusOr<torchscan::v1::DaemonConfig> config = d::EffectiveConfig(flags, d::CurrentMachine());
  if (!config.ok()) {
    std::cerr << "torchscand: " << config.status().message() << "\n";
    return 2;
  }
  if (config->worker_user() == "root")
    spdlog::warn("worker_user is root: jobs' TorchScript runs as root (acceptable only for a private daemon)");
  if (check_config) {
    std::cout << torchscan::ToJson(*config) << "\n";
    return 0;
  }

  // Signals are taken by sigwait below; blocked before any thread starts so none gets them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // A worker's orphans (RSS children of a worker that crashed) become torchscand's children,
  // so that the launcher can reap them before it records the job finished
  // (process/supervise.h). Without it they are still killed, and waited for.
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) spdlog::warn("prctl(PR_SET_CHILD_SUBREAPER) failed");

  absl::StatusOr<std::unique_ptr<d::DaemonServer>> server = d::DaemonServer::BuildAndStart(*config);
  if (!server.ok()) {
    std::cerr << "torchscand: " << server.status().message() << "\n";
    return 1;
  }
  int signal = 0;
  sigwait(&stop_signals, &signal);
  spdlog::info("received {}: shutting down", torchscan::process::SignalName(signal));
  (*server)->Shutdown("interrupted: torchscand received " + torchscan::process::SignalName(signal));
  return 0;
}
