// torchscand: the per-machine TorchScan daemon. Flags or --config FILE (flags win) become a
// validated DaemonConfig; then the server runs until SIGTERM or SIGINT, which stop it
// cleanly (a running job is recorded interrupted). Exit codes: 0 stopped cleanly (or
// --check-config passed), 1 start-up failed (state_dir, listen), 2 bad flags or configuration.
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>

#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "daemon/config.h"
#include "daemon/server.h"
#include "daemon/worker_launcher.h"
#include "io/proto_json.h"

int main(int argc, char** argv) {
  namespace d = torchscan::daemon;
  d::ConfigFlags flags;
  bool check_config = false;
  CLI::App app{"torchscand: runs TorchScan benchmark jobs one at a time, each in a fresh worker"};
  app.add_option("--config", flags.config_path, "DaemonConfig JSON file (flags override it)");
  app.add_option("--listen", flags.listen,
                 "listen address, repeatable: unix:/path, or HOST:PORT (needs --tls-cert, --tls-key, --token-file)");
  app.add_option("--state-dir", flags.state_dir, "folder for job records and results (required)");
  app.add_option("--device", flags.devices, "device jobs may use, repeatable (default cpu)");
  app.add_option("--intra-op-threads", flags.intra_op_threads, "default intra-op threads of jobs (1)");
  app.add_option("--inter-op-threads", flags.inter_op_threads, "default inter-op threads of jobs (1)");
  app.add_option("--cpu-set", flags.cpu_set, "CPUs given to workers, e.g. 0-1 (default all)");
  app.add_option("--max-queue", flags.max_queue_length, "queued jobs accepted (100)");
  app.add_option("--job-wall-time", flags.job_wall_time_s, "seconds before a worker is killed (3600)");
  app.add_option("--worker-memory", flags.worker_memory_bytes, "RLIMIT_AS of workers in bytes (0: none)");
  app.add_option("--max-upload", flags.max_upload_bytes, "largest job spec in bytes (64 MiB)");
  app.add_option("--socket-mode", flags.socket_mode, "octal permissions of unix sockets (0660)");
  app.add_option("--socket-group", flags.socket_group, "group owning unix sockets (default: torchscand's)");
  app.add_option("--tls-cert", flags.tls_cert_file, "PEM server certificate for TCP addresses");
  app.add_option("--tls-key", flags.tls_key_file, "PEM private key of --tls-cert");
  app.add_option("--tls-client-ca", flags.tls_client_ca_file, "PEM CA: clients must present a certificate it signed");
  app.add_option("--token-file", flags.token_file,
                 "bearer tokens, lines \"USER TOKEN [admin]\", USER a login name (mode 0600)");
  app.add_option("--worker-user", flags.worker_user, "user workers run as when torchscand is root (nobody)");
  app.add_option("--admin-group", flags.admin_group,
                 "group whose members (and root) may cancel anyone's jobs on the unix socket (default: only root)");
  app.add_option("--worker-cpu-time", flags.worker_cpu_time_s, "RLIMIT_CPU of workers in seconds (0: none)");
  app.add_option("--worker-open-files", flags.worker_open_files, "RLIMIT_NOFILE of workers (1024)");
  app.add_option("--worker", flags.worker_path, "torchscan-worker path (default: beside torchscand)");
  app.add_option("--rss-child", flags.rss_child_path, "torchscan_rss_child path (default: found from the worker)");
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
  // (daemon/worker_launcher.h). Without it they are still killed, and waited for.
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) spdlog::warn("prctl(PR_SET_CHILD_SUBREAPER) failed");

  absl::StatusOr<std::unique_ptr<d::DaemonServer>> server = d::DaemonServer::BuildAndStart(*config);
  if (!server.ok()) {
    std::cerr << "torchscand: " << server.status().message() << "\n";
    return 1;
  }
  int signal = 0;
  sigwait(&stop_signals, &signal);
  spdlog::info("received {}: shutting down", d::SignalName(signal));
  (*server)->Shutdown("interrupted: torchscand received " + d::SignalName(signal));
  return 0;
}
