#include "benchmarks/benchmark_daemon.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "client/embedded_daemon.h"

namespace torchscan::benchmarks {
namespace {

// Owned here; exchanged to null by whoever stops it first (main or the watchdog).
std::atomic<EmbeddedDaemon*> g_daemon{nullptr};
std::string g_program = "benchmark";

}  // namespace

void StopBenchmarkDaemon() { delete g_daemon.exchange(nullptr); }

void GiveUp(const std::string& why) {
  std::fprintf(stderr, "%s: giving up: %s\n", g_program.c_str(), why.c_str());
  std::fflush(stdout);
  StopBenchmarkDaemon();
  std::_Exit(1);
}

BenchmarkDaemon StartBenchmarkDaemon(const std::string& program, const std::string& daemon_path,
                                     std::chrono::seconds give_up_after, EmbeddedDaemonOptions options) {
  g_program = program;
  if (::access(daemon_path.c_str(), X_OK) != 0) {
    std::fprintf(stderr,
                 "%s: torchscand \"%s\" is not executable: build it with `bazel build //daemon:torchscand "
                 "//worker:torchscan-worker` and give its path (bazel-bin/daemon/torchscand)\n",
                 program.c_str(), daemon_path.c_str());
    std::exit(2);
  }
  std::thread([give_up_after] {
    std::this_thread::sleep_for(give_up_after);
    GiveUp("not finished after " + std::to_string(give_up_after.count()) + " s");
  }).detach();

  options.daemon_path = daemon_path;
  absl::StatusOr<std::unique_ptr<EmbeddedDaemon>> daemon = EmbeddedDaemon::Start(options);
  if (!daemon.ok()) GiveUp(std::string(daemon.status().message()));
  BenchmarkDaemon started;
  started.pid = (*daemon)->pid();
  started.address = (*daemon)->address();
  g_daemon = daemon->release();
  absl::StatusOr<std::unique_ptr<DaemonClient>> client = DaemonClient::Connect(started.address, {}, 10);
  if (!client.ok()) GiveUp("cannot connect to " + started.address + ": " + client.status().ToString());
  started.client = std::move(*client);
  return started;
}

}  // namespace torchscan::benchmarks
