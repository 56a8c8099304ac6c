// torchscand's configuration: the DaemonConfig message (proto/service.proto) loaded from a
// JSON file, overridden by command-line flags, completed with defaults and validated.
// gRPC-free and LibTorch-free.
//
// Every error is InvalidArgument whose message names the field (the DaemonConfig field path,
// e.g. "limits.job_wall_time_s") and the fix; errors from the file also name the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/slurm_config.h"
#include "proto/service.pb.h"
#include "proto/spec_limits.h"

namespace torchscan::daemon {

// Values given on the command line; an unset field leaves the file's value (or the default).
// A non-empty list replaces the file's list.
struct ConfigFlags {
  std::string config_path;                        // --config FILE; "" = no file
  std::vector<std::string> listen;                // --listen (repeatable)
  std::optional<std::string> state_dir;           // --state-dir
  std::vector<std::string> devices;               // --device (repeatable)
  std::optional<int> intra_op_threads;            // --intra-op-threads
  std::optional<int> inter_op_threads;            // --inter-op-threads
  std::optional<std::string> cpu_set;             // --cpu-set, e.g. "0-1,3"
  std::optional<int> max_queue_length;            // --max-queue
  std::optional<int> max_queued_per_user;         // --max-queued-per-user
  std::optional<double> job_wall_time_s;          // --job-wall-time (seconds)
  std::optional<int64_t> worker_memory_bytes;     // --worker-memory (bytes; 0 = no limit)
  std::optional<int64_t> max_upload_bytes;        // --max-upload (bytes)
  std::optional<std::string> socket_mode;         // --socket-mode, e.g. "0660"
  std::optional<std::string> worker_path;         // --worker
  std::optional<std::string> rss_child_path;      // --rss-child
  std::optional<std::string> socket_group;        // --socket-group
  std::optional<std::string> tls_cert_file;       // --tls-cert
  std::optional<std::string> tls_key_file;        // --tls-key
  std::optional<std::string> tls_client_ca_file;  // --tls-client-ca
  std::optional<std::string> token_file;          // --token-file
  std::optional<std::string> worker_user;         // --worker-user
  std::optional<std::string> admin_group;         // --admin-group
  std::optional<double> worker_cpu_time_s;        // --worker-cpu-time (seconds; 0 = no limit)
  std::optional<int> worker_open_files;           // --worker-open-files
  std::optional<double> noise_floor_max_age_s;    // --noise-floor-max-age (seconds)
  bool no_spare_worker = false;                   // --no-spare-worker (true sets it; false leaves the file's)
  std::optional<std::string> sandbox;             // --sandbox namespaces|off
  std::vector<std::string> shared_paths;          // --share (repeatable)
  SlurmFlags slurm;                               // --slurm-* (slurm_config.h)
};

// What validation and defaults need to know about the machine; tests pass their own.
struct MachineFacts {
  std::vector<int> available_cpus;  // CPUs this process may run on (sched_getaffinity)
  std::string executable_dir;       // folder of the running torchscand (default worker location)
  bool is_root = false;             // effective uid 0: workers then run as worker_user
  int64_t memory_bytes = 0;         // MemTotal (0: unknown)
  int visible_gpus = 0;             // CUDA devices a worker would see (devices/visible_gpus.h)
};

// The running process's facts.
MachineFacts CurrentMachine();

// Defaults (zero values in DaemonConfig mean "default") and limits: proto/spec_limits.h
// (kDefaultSocketMode, kDefaultMaxQueueLength, kDefaultJobWallTimeS, kDefaultMaxUploadBytes,
// kDefaultWorkerOpenFiles, kMinWorkerOpenFiles, kDefaultWorkerUser, kDefaultIntraOpThreads,
// kDefaultInterOpThreads, kMaxThreads). The socket's name in state_dir: kStateSocketFile
// (worker/state_folder.h). The programs' file names:
inline constexpr const char* kWorkerFileName = "torchscan-worker";
inline constexpr const char* kRssChildFileName = "torchscan_rss_child";

// Reads and strictly parses a DaemonConfig JSON file (io/proto_json.h: LoadJsonStrict).
absl::StatusOr<v1::DaemonConfig> LoadConfigFile(const std::string& path);

// Copies every flag that was given over `config`.
void ApplyFlags(const ConfigFlags& flags, v1::DaemonConfig* config);

// Fills defaults: state_dir, worker_path and rss_child_path made absolute; listen
// ["unix:<state_dir>/torchscand.sock"]; socket_mode kDefaultSocketMode; devices "cpu" and
// "cuda:0" .. "cuda:<machine.visible_gpus - 1>" (every GPU the driver shows);
// threads kDefaultIntraOpThreads and kDefaultInterOpThreads; limits kDefaultMaxQueueLength,
// max_queued_per_user max_queue_length / kDefaultQueueShareDivisor (at least 1), kDefaultJobWallTimeS,
// kDefaultMaxUploadBytes and kDefaultWorkerOpenFiles; worker_path the Bazel output layout's
// <executable_dir>/../worker/torchscan-worker when executable_dir is named "daemon", else
// <executable_dir>/torchscan-worker (an installation), never a guess between the two, so a stale program of an older
// build cannot run; rss_child_path likewise <worker dir>/../passes/torchscan_rss_child when the worker's folder is
// named "worker", else <worker dir>/torchscan_rss_child, when executable, else left empty (jobs asking for RSS are then
// refused); worker_user kDefaultWorkerUser when machine.is_root. Negative values are kept so that validation names
// them.
void ApplyDefaults(const MachineFacts& machine, v1::DaemonConfig* config);

// Checks a configuration after ApplyDefaults: state_dir set; each listen address a unix:
// socket (path at most 107 bytes) or HOST:PORT TCP, which requires tls.cert_file,
// tls.key_file and token_file; socket_mode octal; socket_group and admin_group existing
// groups; tls files readable PEM (key with cert; client_ca_file only with a certificate);
// token_file loadable (token_file.h); worker_user an existing user when machine.is_root
// (root itself only for a daemon without TCP addresses, e.g. a private one), empty
// otherwise; devices "cpu", "cuda" or "cuda:N"; thread counts 0..kMaxThreads; cpu_set within
// machine.available_cpus; limits >= 0 and finite, worker_open_files at least
// kMinWorkerOpenFiles; worker_path executable; rss_child_path, when set, executable.
absl::Status ValidateConfig(const v1::DaemonConfig& config, const MachineFacts& machine);

// File (when flags.config_path is set), then flags, then defaults, then validation.
absl::StatusOr<v1::DaemonConfig> EffectiveConfig(const ConfigFlags& flags, const MachineFacts& machine);

// A kernel-style CPU list ("0-3,6", spaces allowed around items) as sorted, distinct CPUs.
// InvalidArgument naming `field` for empty text, a negative or non-numeric item or a range
// whose end is below its start.
absl::StatusOr<std::vector<int>> ParseCpuList(std::string_view text, const std::string& field = "cpu_set");

// "0660" / "660" -> 0660. InvalidArgument naming socket_mode for anything but 3-4 octal digits.
absl::StatusOr<mode_t> ParseSocketMode(std::string_view text);

// The path of a "unix:" address ("unix:/a/b" or "unix:///a/b"); nullopt for other addresses.
std::optional<std::string> UnixSocketPath(std::string_view address);

}  // namespace torchscan::daemon
