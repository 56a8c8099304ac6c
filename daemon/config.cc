#include "daemon/config.h"

#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/environment.h"
#include "daemon/token_file.h"
#include "devices/visible_gpus.h"
#include "io/file_io.h"
#include "io/proto_json.h"
#include "spec/device_name.h"
#include "spec/field_rules.h"
#include "worker/state_folder.h"

namespace torchscan::daemon {
namespace {

namespace fs = std::filesystem;

absl::Status Invalid(const std::string& field, const std::string& what) { return spec::FieldError(field, what); }

bool IsExecutableFile(const std::string& path) {
  std::error_code error;
  return !path.empty() && fs::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

bool AllDigits(absl::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

absl::Status ValidateListen(const std::string& field, const std::string& address, bool has_credentials) {
  if (std::optional<std::string> path = UnixSocketPath(address)) {
    if (path->empty()) return Invalid(field, "\"" + address + "\" has no socket path; write unix:/path/to.sock");
    if (path->size() > 107)
      return Invalid(field, absl::StrCat("unix socket path is ", path->size(),
                                         " bytes; the kernel allows 107: choose a shorter state_dir or path"));
    return absl::OkStatus();
  }
  const size_t colon = address.rfind(':');
  const std::string host = colon == std::string::npos ? "" : address.substr(0, colon);
  const absl::string_view port_text = colon == std::string::npos ? "" : absl::string_view(address).substr(colon + 1);
  int port = -1;
  if (host.empty() || !AllDigits(port_text) || !absl::SimpleAtoi(port_text, &port) || port > 65535) {
    return Invalid(field,
                   "\"" + address + "\" is neither unix:/path nor HOST:PORT with a port 0-65535 (e.g. 0.0.0.0:7411)");
  }
  if (!has_credentials) {
    return Invalid(field, "TCP address \"" + address +
                              "\" needs credentials: set tls.cert_file, tls.key_file and token_file "
                              "(--tls-cert, --tls-key, --token-file), or listen on a unix: socket");
  }
  return absl::OkStatus();
}

// A readable file that looks like PEM.
absl::Status ValidatePemFile(const std::string& field, const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return Invalid(field, std::string(text.status().message()));
  if (text->find("-----BEGIN ") == std::string::npos)
    return Invalid(field, "\"" + path + "\" is not a PEM file (no -----BEGIN line)");
  return absl::OkStatus();
}

absl::Status ValidateTls(const v1::TlsConfig& tls) {
  if (tls.cert_file().empty() != tls.key_file().empty())
    return Invalid(tls.cert_file().empty() ? "tls.cert_file" : "tls.key_file",
                   "tls.cert_file and tls.key_file go together: give both or neither");
  if (!tls.client_ca_file().empty() && tls.cert_file().empty())
    return Invalid("tls.client_ca_file", "mutual TLS needs the server's own tls.cert_file and tls.key_file");
  for (const auto& [field, path] : {std::pair<const char*, const std::string&>{"tls.cert_file", tls.cert_file()},
                                    {"tls.key_file", tls.key_file()},
                                    {"tls.client_ca_file", tls.client_ca_file()}}) {
    if (!path.empty())
      if (absl::Status s = ValidatePemFile(field, path); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Whether `user` may search (x) every existing folder from / to `path`, and execute `path`
// itself when `executable` (folders that do not exist yet are not checked).
bool UserCanReach(const passwd& user, const fs::path& path, bool executable) {
  fs::path walked = "/";
  std::vector<fs::path> parts;
  for (const fs::path& part : fs::absolute(path).lexically_normal().relative_path()) {
    walked /= part;
    parts.push_back(walked);
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    struct stat info;
    if (::stat(parts[i].c_str(), &info) != 0) return true;
    const bool last = i + 1 == parts.size();
    if (last && !executable) return true;
    const mode_t bits = info.st_uid == user.pw_uid ? S_IXUSR : info.st_gid == user.pw_gid ? S_IXGRP : S_IXOTH;
    if ((info.st_mode & bits) == 0) return false;
  }
  return true;
}

// As root, workers run as worker_user: it must reach its programs and the job folders.
absl::Status ValidateWorkerUserReach(const v1::DaemonConfig& config, const passwd& user) {
  const std::string fix =
      "; install the programs where it can reach them (scripts/install.sh) or choose another "
      "worker_user";
  for (const auto& [field, path] : {std::pair<const char*, const std::string&>{"worker_path", config.worker_path()},
                                    {"rss_child_path", config.rss_child_path()}}) {
    if (!path.empty() && !UserCanReach(user, path, true))
      return Invalid(field, "worker_user " + config.worker_user() + " cannot execute \"" + path +
                                "\" (it or a folder on its way is closed to that user)" + fix);
  }
  if (!UserCanReach(user, config.state_dir(), false))
    return Invalid("state_dir", "worker_user " + config.worker_user() + " cannot reach \"" + config.state_dir() +
                                    "\", where its jobs' folders live; open the folders on the way (chmod o+x)");
  return absl::OkStatus();
}

absl::Status ValidateAccounts(const v1::DaemonConfig& config, const MachineFacts& machine) {
  if (!config.socket_group().empty() && ::getgrnam(config.socket_group().c_str()) == nullptr)
    return Invalid("socket_group", "no group named \"" + config.socket_group() + "\"; create it (groupadd " +
                                       config.socket_group() + ") or choose another");
  if (!config.admin_group().empty() && ::getgrnam(config.admin_group().c_str()) == nullptr)
    return Invalid("admin_group", "no group named \"" + config.admin_group() + "\"; create it (groupadd " +
                                      config.admin_group() + ") and add the admins (usermod -aG " +
                                      config.admin_group() + " NAME), or choose another");
  if (!machine.is_root && !config.worker_user().empty())
    return Invalid("worker_user",
                   "torchscand is not running as root, so workers run as its own user; remove "
                   "worker_user or start torchscand as root");
  if (!machine.is_root) return absl::OkStatus();
  const passwd* user = ::getpwnam(config.worker_user().c_str());
  if (user == nullptr)
    return Invalid("worker_user", "no user named \"" + config.worker_user() + "\"; create it (useradd --system " +
                                      config.worker_user() + ") or choose another");
  const bool tcp = std::any_of(config.listen().begin(), config.listen().end(),
                               [](const std::string& address) { return !UnixSocketPath(address).has_value(); });
  if (config.worker_user() == "root" && tcp)
    return Invalid("worker_user",
                   "workers run untrusted TorchScript and must not run as root on a daemon that "
                   "listens on TCP; choose an unprivileged user such as nobody");
  return ValidateWorkerUserReach(config, *user);
}

absl::Status ValidateSandbox(const v1::DaemonConfig& config) {
  if (config.sandbox() != kSandboxOff && config.sandbox() != kSandboxNamespaces)
    return Invalid("sandbox", absl::StrCat("unknown value \"", config.sandbox(), "\"; use ", kSandboxNamespaces,
                                           " (jobs see only their own folder) or ", kSandboxOff));
  for (int i = 0; i < config.shared_paths_size(); ++i) {
    const std::string& path = config.shared_paths(i);
    const std::string field = absl::StrCat("shared_paths[", i, "]");
    std::error_code error;
    if (path.empty() || path[0] != '/') return Invalid(field, "\"" + path + "\" must be an absolute path");
    if (!fs::exists(path, error)) return Invalid(field, "\"" + path + "\" does not exist");
  }
  return absl::OkStatus();
}

absl::Status ValidateDevice(const std::string& field, const std::string& device) {
  if (device.empty()) return Invalid(field, "empty; use cpu or cuda:N");
  absl::StatusOr<spec::DeviceName> parsed = spec::ParseDeviceName(device);
  return parsed.ok() ? absl::OkStatus() : Invalid(field, std::string(parsed.status().message()));
}

absl::Status ValidateThreads(const std::string& field, int threads) {
  return spec::CheckThreadCount(field, threads, kMaxThreads, /*zero_allowed=*/true);
}

absl::Status ValidateLimits(const v1::DaemonLimits& limits) {
  if (limits.max_queue_length() < 0)
    return Invalid("limits.max_queue_length",
                   absl::StrCat(limits.max_queue_length(), " is negative; give a count >= 1"));
  if (limits.max_queued_per_user() < 0)
    return Invalid("limits.max_queued_per_user", absl::StrCat(limits.max_queued_per_user(),
                                                              " is negative; give a count >= 1, or 0 for a quarter of "
                                                              "max_queue_length"));
  if (limits.max_queue_length() > 0 && limits.max_queued_per_user() > limits.max_queue_length())
    return Invalid("limits.max_queued_per_user",
                   absl::StrCat(limits.max_queued_per_user(), " is more than max_queue_length (",
                                limits.max_queue_length(), "); give at most that"));
  if (!std::isfinite(limits.job_wall_time_s()) || limits.job_wall_time_s() < 0)
    return Invalid("limits.job_wall_time_s", absl::StrCat(limits.job_wall_time_s(), " is not a number of seconds > 0"));
  if (limits.worker_memory_bytes() < -1)
    return Invalid("limits.worker_memory_bytes",
                   absl::StrCat(limits.worker_memory_bytes(), " is negative; give bytes, 0 for the default (",
                                kDefaultWorkerMemoryPercent, " % of RAM less ", kDaemonMemoryReserveBytes >> 20,
                                " MiB) or -1 for none"));
  if (limits.max_upload_bytes() < 0)
    return Invalid("limits.max_upload_bytes", absl::StrCat(limits.max_upload_bytes(), " is negative; give bytes"));
  if (!std::isfinite(limits.worker_cpu_time_s()) || limits.worker_cpu_time_s() < 0)
    return Invalid("limits.worker_cpu_time_s",
                   absl::StrCat(limits.worker_cpu_time_s(), " is not a number of seconds >= 0 (0: no limit)"));
  if (limits.worker_open_files() < kMinWorkerOpenFiles)
    return Invalid(
        "limits.worker_open_files",
        absl::StrCat(limits.worker_open_files(), " is too few for a worker; give at least ", kMinWorkerOpenFiles));
  return absl::OkStatus();
}

// In Bazel's output layout each program sits in its package's folder (bin/daemon/torchscand,
// bin/worker/torchscan-worker, bin/passes/torchscan_rss_child); an installation puts them all
// in one folder. The layout is read from the folder's name, and only that layout's path is
// used: a program left beside torchscand by an older build (before the worker moved to
// worker/) must never run in place of the current one.
bool InBazelPackage(const fs::path& dir, const char* package) { return dir.filename() == package; }

std::string DefaultWorker(const std::string& executable_dir) {
  const fs::path dir(executable_dir);
  const fs::path path =
      InBazelPackage(dir, "daemon") ? dir.parent_path() / "worker" / kWorkerFileName : dir / kWorkerFileName;
  return path.lexically_normal().string();
}

// "" when the child is not there (jobs asking for RSS are then refused).
std::string DefaultRssChild(const std::string& worker_path) {
  const fs::path dir = fs::path(worker_path).parent_path();
  const fs::path path =
      InBazelPackage(dir, "worker") ? dir.parent_path() / "passes" / kRssChildFileName : dir / kRssChildFileName;
  return IsExecutableFile(path.string()) ? path.lexically_normal().string() : "";
}

}  // namespace

MachineFacts CurrentMachine() {
  MachineFacts machine;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set)) machine.available_cpus.push_back(cpu);
  }
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) machine.executable_dir = self.parent_path().string();
  machine.is_root = ::geteuid() == 0;
  if (absl::StatusOr<std::string> meminfo = ReadFile("/proc/meminfo"); meminfo.ok())
    machine.memory_bytes = ParseMemTotal(*meminfo).value_or(0);
  machine.visible_gpus = devices::VisibleGpusHere();
  return machine;
}

absl::StatusOr<v1::DaemonConfig> LoadConfigFile(const std::string& path) {
  v1::DaemonConfig config;
  if (absl::Status s = LoadJsonStrict(path, &config); !s.ok()) return s;
  return config;
}

void ApplyFlags(const ConfigFlags& flags, v1::DaemonConfig* config) {
  if (!flags.listen.empty()) *config->mutable_listen() = {flags.listen.begin(), flags.listen.end()};
  if (flags.state_dir) config->set_state_dir(*flags.state_dir);
  if (!flags.devices.empty()) *config->mutable_devices() = {flags.devices.begin(), flags.devices.end()};
  if (flags.intra_op_threads) config->set_default_intra_op_threads(*flags.intra_op_threads);
  if (flags.inter_op_threads) config->set_default_inter_op_threads(*flags.inter_op_threads);
  if (flags.cpu_set) config->set_cpu_set(*flags.cpu_set);
  v1::DaemonLimits* limits = config->mutable_limits();
  if (flags.max_queue_length) limits->set_max_queue_length(*flags.max_queue_length);
  if (flags.max_queued_per_user) limits->set_max_queued_per_user(*flags.max_queued_per_user);
  if (flags.job_wall_time_s) limits->set_job_wall_time_s(*flags.job_wall_time_s);
  if (flags.worker_memory_bytes) limits->set_worker_memory_bytes(*flags.worker_memory_bytes);
  if (flags.max_upload_bytes) limits->set_max_upload_bytes(*flags.max_upload_bytes);
  if (flags.socket_mode) config->set_socket_mode(*flags.socket_mode);
  if (flags.worker_path) config->set_worker_path(*flags.worker_path);
  if (flags.rss_child_path) config->set_rss_child_path(*flags.rss_child_path);
  if (flags.socket_group) config->set_socket_group(*flags.socket_group);
  if (flags.tls_cert_file) config->mutable_tls()->set_cert_file(*flags.tls_cert_file);
  if (flags.tls_key_file) config->mutable_tls()->set_key_file(*flags.tls_key_file);
  if (flags.tls_client_ca_file) config->mutable_tls()->set_client_ca_file(*flags.tls_client_ca_file);
  if (flags.token_file) config->set_token_file(*flags.token_file);
  if (flags.worker_user) config->set_worker_user(*flags.worker_user);
  if (flags.admin_group) config->set_admin_group(*flags.admin_group);
  if (flags.worker_cpu_time_s) limits->set_worker_cpu_time_s(*flags.worker_cpu_time_s);
  if (flags.worker_open_files) limits->set_worker_open_files(*flags.worker_open_files);
  if (flags.noise_floor_max_age_s) config->set_noise_floor_max_age_s(*flags.noise_floor_max_age_s);
  if (flags.no_spare_worker) config->set_no_spare_worker(true);
  if (flags.sandbox) config->set_sandbox(*flags.sandbox);
  if (!flags.shared_paths.empty())
    *config->mutable_shared_paths() = {flags.shared_paths.begin(), flags.shared_paths.end()};
  ApplySlurmFlags(flags.slurm, config);
}

void ApplyDefaults(const MachineFacts& machine, v1::DaemonConfig* config) {
  if (!config->state_dir().empty()) {
    std::error_code error;
    const fs::path absolute = fs::absolute(config->state_dir(), error);
    if (!error) config->set_state_dir(absolute.lexically_normal().string());
  }
  if (config->listen().empty() && !config->state_dir().empty())
    config->add_listen("unix:" + (fs::path(config->state_dir()) / worker::kStateSocketFile).string());
  if (config->socket_mode().empty()) config->set_socket_mode(kDefaultSocketMode);
  if (config->devices().empty()) {
    config->add_devices("cpu");
    for (int i = 0; i < machine.visible_gpus; ++i) config->add_devices(absl::StrCat("cuda:", i));
  }
  if (config->default_intra_op_threads() == 0) config->set_default_intra_op_threads(kDefaultIntraOpThreads);
  if (config->default_inter_op_threads() == 0) config->set_default_inter_op_threads(kDefaultInterOpThreads);
  v1::DaemonLimits* limits = config->mutable_limits();
  if (limits->max_queue_length() == 0) limits->set_max_queue_length(kDefaultMaxQueueLength);
  if (limits->max_queued_per_user() == 0)
    limits->set_max_queued_per_user(std::max(1, limits->max_queue_length() / kDefaultQueueShareDivisor));
  if (limits->job_wall_time_s() == 0) limits->set_job_wall_time_s(kDefaultJobWallTimeS);
  if (limits->max_upload_bytes() == 0) limits->set_max_upload_bytes(kDefaultMaxUploadBytes);
  if (limits->worker_open_files() == 0) limits->set_worker_open_files(kDefaultWorkerOpenFiles);
  if (config->noise_floor_max_age_s() == 0) config->set_noise_floor_max_age_s(kDefaultNoiseFloorMaxAgeS);
  if (machine.is_root && config->worker_user().empty()) config->set_worker_user(kDefaultWorkerUser);
  if (config->sandbox().empty()) config->set_sandbox(kSandboxNamespaces);
  if (config->worker_path().empty() && !machine.executable_dir.empty())
    config->set_worker_path(DefaultWorker(machine.executable_dir));
  std::vector<std::string*> paths = {config->mutable_worker_path(), config->mutable_rss_child_path(),
                                     config->mutable_token_file()};
  if (config->has_tls()) {
    v1::TlsConfig* tls = config->mutable_tls();
    paths.insert(paths.end(), {tls->mutable_cert_file(), tls->mutable_key_file(), tls->mutable_client_ca_file()});
  }
  for (std::string* path : paths) {
    std::error_code error;
    if (!path->empty()) *path = fs::absolute(*path, error).lexically_normal().string();
  }
  if (config->rss_child_path().empty() && !config->worker_path().empty())
    config->set_rss_child_path(DefaultRssChild(config->worker_path()));
  ApplySlurmDefaults(config);
}

absl::Status ValidateConfig(const v1::DaemonConfig& config, const MachineFacts& machine) {
  if (config.state_dir().empty())
    return Invalid("state_dir", "required: the folder for job records and results (--state-dir or \"state_dir\")");
  if (config.listen().empty()) return Invalid("listen", "give at least one address, e.g. unix:/run/torchscand.sock");
  if (absl::Status s = ValidateTls(config.tls()); !s.ok()) return s;
  if (!config.token_file().empty())
    if (absl::StatusOr<TokenTable> tokens = TokenTable::Load(config.token_file()); !tokens.ok()) return tokens.status();
  const bool has_credentials = !config.tls().cert_file().empty() && !config.token_file().empty();
  for (int i = 0; i < config.listen_size(); ++i) {
    if (absl::Status s = ValidateListen(absl::StrCat("listen[", i, "]"), config.listen(i), has_credentials); !s.ok())
      return s;
  }
  if (absl::StatusOr<mode_t> mode = ParseSocketMode(config.socket_mode()); !mode.ok()) return mode.status();
  for (int i = 0; i < config.devices_size(); ++i)
    if (absl::Status s = ValidateDevice(absl::StrCat("devices[", i, "]"), config.devices(i)); !s.ok()) return s;
  if (absl::Status s = ValidateThreads("default_intra_op_threads", config.default_intra_op_threads()); !s.ok())
    return s;
  if (absl::Status s = ValidateThreads("default_inter_op_threads", config.default_inter_op_threads()); !s.ok())
    return s;
  if (!config.cpu_set().empty()) {
    absl::StatusOr<std::vector<int>> cpus = ParseCpuList(config.cpu_set());
    if (!cpus.ok()) return cpus.status();
    const std::set<int> available(machine.available_cpus.begin(), machine.available_cpus.end());
    for (int cpu : *cpus) {
      if (!available.count(cpu))
        return Invalid("cpu_set", absl::StrCat("CPU ", cpu, " is not available on this machine (available: ",
                                               FormatCpuList(machine.available_cpus), ")"));
    }
  }
  if (absl::Status s = ValidateLimits(config.limits()); !s.ok()) return s;
  if (!std::isfinite(config.noise_floor_max_age_s()) || config.noise_floor_max_age_s() < 0)
    return Invalid("noise_floor_max_age_s",
                   absl::StrCat(config.noise_floor_max_age_s(), " is not a number of seconds > 0 (default ",
                                kDefaultNoiseFloorMaxAgeS, ": 7 days)"));
  if (!IsExecutableFile(config.worker_path()))
    return Invalid("worker_path",
                   "\"" + config.worker_path() +
                       "\" is not an executable file; build //worker:torchscan-worker and pass --worker");
  if (!config.rss_child_path().empty() && !IsExecutableFile(config.rss_child_path()))
    return Invalid("rss_child_path",
                   "\"" + config.rss_child_path() + "\" is not an executable file; build //passes:torchscan_rss_child");
  if (absl::Status s = ValidateAccounts(config, machine); !s.ok()) return s;
  if (absl::Status s = ValidateSlurmConfig(config, machine.executable_dir + "/" + kNodeJobFileName); !s.ok()) return s;
  return ValidateSandbox(config);
}

absl::StatusOr<v1::DaemonConfig> EffectiveConfig(const ConfigFlags& flags, const MachineFacts& machine) {
  v1::DaemonConfig config;
  if (!flags.config_path.empty()) {
    absl::StatusOr<v1::DaemonConfig> loaded = LoadConfigFile(flags.config_path);
    if (!loaded.ok()) return loaded.status();
    config = *std::move(loaded);
    std::error_code error;
    config.set_config_file(fs::absolute(flags.config_path, error).lexically_normal().string());
  }
  ApplyFlags(flags, &config);
  ApplyDefaults(machine, &config);
  if (absl::Status s = ValidateConfig(config, machine); !s.ok()) {
    if (flags.config_path.empty()) return s;
    return absl::InvalidArgumentError(
        absl::StrCat(s.message(), " (configuration from ", flags.config_path, " and the command line)"));
  }
  return config;
}

absl::StatusOr<std::vector<int>> ParseCpuList(std::string_view cpu_list, const std::string& field) {
  const absl::string_view text(cpu_list.data(), cpu_list.size());
  std::set<int> cpus;
  if (absl::StripAsciiWhitespace(text).empty()) return Invalid(field, "empty CPU list; write e.g. \"0-3,6\"");
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    item = absl::StripAsciiWhitespace(item);
    std::vector<absl::string_view> ends = absl::StrSplit(item, absl::MaxSplits('-', 1));
    int first = -1, last = -1;
    const bool ok = AllDigits(ends[0]) && absl::SimpleAtoi(ends[0], &first) &&
                    (ends.size() == 1 ? (last = first, true) : AllDigits(ends[1]) && absl::SimpleAtoi(ends[1], &last));
    if (!ok || first >= CPU_SETSIZE || last >= CPU_SETSIZE)
      return Invalid(field, "\"" + std::string(item) + "\" is not a CPU number or range like 0-3");
    if (last < first) return Invalid(field, "\"" + std::string(item) + "\" ends below its start");
    for (int cpu = first; cpu <= last; ++cpu) cpus.insert(cpu);
  }
  return std::vector<int>(cpus.begin(), cpus.end());
}

absl::StatusOr<mode_t> ParseSocketMode(std::string_view text) {
  const bool octal = (text.size() == 3 || text.size() == 4) &&
                     std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '7'; });
  if (!octal || (text.size() == 4 && text[0] != '0'))
    return Invalid("socket_mode", "\"" + std::string(text) + "\" is not an octal permission like \"0660\"");
  mode_t mode = 0;
  for (char c : text) mode = mode * 8 + static_cast<mode_t>(c - '0');
  return mode;
}

std::optional<std::string> UnixSocketPath(std::string_view text) {
  absl::string_view address(text.data(), text.size());
  if (absl::ConsumePrefix(&address, "unix://")) return std::string(address);
  if (absl::ConsumePrefix(&address, "unix:")) return std::string(address);
  return std::nullopt;
}

}  // namespace torchscan::daemon
