#include "daemon/config_flags.h"

#include <CLI/CLI.hpp>

#include "absl/strings/str_format.h"
#include "proto/spec_limits.h"

namespace torchscan::daemon {

void AddConfigFlags(CLI::App* app, ConfigFlags* flags) {
  static_assert(kDefaultMaxUploadBytes % (int64_t{1} << 20) == 0, "--max-upload's help states whole MiB");
  app->add_option("--config", flags->config_path, "DaemonConfig JSON file (flags override it)");
  app->add_option("--listen", flags->listen,
                  "listen address, repeatable: unix:/path, or HOST:PORT (needs --tls-cert, --tls-key, --token-file)");
  app->add_option("--state-dir", flags->state_dir, "folder for job records and results (required)");
  app->add_option("--device", flags->devices, "device jobs may use, repeatable (default cpu)");
  app->add_option("--intra-op-threads", flags->intra_op_threads,
                  absl::StrFormat("default intra-op threads of jobs (%d)", kDefaultIntraOpThreads));
  app->add_option("--inter-op-threads", flags->inter_op_threads,
                  absl::StrFormat("default inter-op threads of jobs (%d)", kDefaultInterOpThreads));
  app->add_option("--cpu-set", flags->cpu_set, "CPUs given to workers, e.g. 0-1 (default all)");
  app->add_option("--max-queue", flags->max_queue_length,
                  absl::StrFormat("queued jobs accepted (%d)", kDefaultMaxQueueLength));
  app->add_option("--max-queued-per-user", flags->max_queued_per_user,
                  absl::StrFormat("queued jobs one user may hold (%d: --max-queue / %d, or 1)",
                                  kDefaultMaxQueueLength / kDefaultQueueShareDivisor, kDefaultQueueShareDivisor));
  app->add_option("--job-wall-time", flags->job_wall_time_s,
                  absl::StrFormat("seconds before a worker is killed (%g)", kDefaultJobWallTimeS));
  app->add_option("--noise-floor-max-age", flags->noise_floor_max_age_s,
                  absl::StrFormat("seconds after which the noise floor (calibrate) is labelled stale (%g: 7 days)",
                                  kDefaultNoiseFloorMaxAgeS));
  app->add_option("--worker-memory", flags->worker_memory_bytes,
                  "memory of each job's worker in bytes, /tmp and /dev/shm included (0: the default, 75 % of RAM less "
                  "512 MiB, in a memory cgroup; -1: none)");
  app->add_option("--max-upload", flags->max_upload_bytes,
                  absl::StrFormat("largest job spec in bytes (%d MiB)", kDefaultMaxUploadBytes >> 20));
  app->add_option("--socket-mode", flags->socket_mode,
                  absl::StrFormat("octal permissions of unix sockets (%s)", kDefaultSocketMode));
  app->add_option("--socket-group", flags->socket_group, "group owning unix sockets (default: torchscand's)");
  app->add_option("--tls-cert", flags->tls_cert_file, "PEM server certificate for TCP addresses");
  app->add_option("--tls-key", flags->tls_key_file, "PEM private key of --tls-cert");
  app->add_option("--tls-client-ca", flags->tls_client_ca_file, "PEM CA: clients must present a certificate it signed");
  app->add_option("--token-file", flags->token_file,
                  "bearer tokens, lines \"USER TOKEN [admin]\", USER a login name (mode 0600)");
  app->add_option("--worker-user", flags->worker_user,
                  absl::StrFormat("user workers run as when torchscand is root (%s)", kDefaultWorkerUser));
  app->add_option("--admin-group", flags->admin_group,
                  "group whose members (and root) may cancel anyone's jobs on the unix socket (default: only root)");
  app->add_option("--worker-cpu-time", flags->worker_cpu_time_s, "RLIMIT_CPU of workers in seconds (0: none)");
  app->add_option("--worker-open-files", flags->worker_open_files,
                  absl::StrFormat("RLIMIT_NOFILE of workers (%d)", kDefaultWorkerOpenFiles));
  app->add_option("--worker", flags->worker_path,
                  "torchscan-worker path (default: ../worker/torchscan-worker when torchscand runs from Bazel's "
                  "daemon/ folder, else beside torchscand)");
  app->add_option("--rss-child", flags->rss_child_path, "torchscan_rss_child path (default: found from the worker)");
  app->add_flag("--no-spare-worker", flags->no_spare_worker,
                "start a cold worker for every job instead of keeping one warm spare worker loaded between jobs");
  app->add_option("--sandbox", flags->sandbox,
                  "namespaces (default): each job sees only its own folder, its programs and --share paths, no "
                  "network; off: jobs see what --worker-user can reach (a private, single-user daemon)");
  app->add_option("--share", flags->shared_paths,
                  "a path sandboxed jobs may read (datasets, models by path); repeatable");
  app->add_option("--slurm-partition", flags->slurm.partition,
                  "be a front for this Slurm partition: each job runs as one exclusive Slurm job on one node");
  app->add_option("--slurm-account", flags->slurm.account, "sbatch --account of the jobs (default none)");
  app->add_option("--slurm-time", flags->slurm.time_limit,
                  "sbatch --time of the jobs, e.g. 01:00:00 (default: --job-wall-time plus 5 minutes)");
  app->add_option("--slurm-constraint", flags->slurm.constraint, "sbatch --constraint: node features (default none)");
  app->add_option("--slurm-gres", flags->slurm.gres, "sbatch --gres, e.g. gpu:1 (default none)");
  app->add_option("--slurm-bin", flags->slurm.node_bin_dir,
                  "folder on the nodes with torchscan-node-job, torchscan-worker, torchscan_rss_child (default: "
                  "the paths this daemon uses)");
}

}  // namespace torchscan::daemon
