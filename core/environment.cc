#include "core/environment.h"

#include "core/timestamp.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <iterator>
#include <limits>
#include <set>

#include "core/version.h"
#include "io/file_io.h"

namespace torchscan {
namespace {

constexpr std::string_view kWhitespace = " \t\r\n\f\v";

// The text of a file that describes the machine (/proc, /sys, os-release), read with
// io/file_io.h's ReadFile; nullopt when this machine does not offer it or it cannot be read.
std::optional<std::string> MachineFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return std::nullopt;
  return *std::move(text);
}

std::string_view Trim(std::string_view text) {
  const size_t first = text.find_first_not_of(kWhitespace);
  if (first == std::string_view::npos) return {};
  const size_t last = text.find_last_not_of(kWhitespace);
  return text.substr(first, last - first + 1);
}

// Calls `visit(line)` for each line of `text` (without its '\n').
template <typename Visit>
void ForEachLine(std::string_view text, Visit visit) {
  while (!text.empty()) {
    const size_t end = text.find('\n');
    visit(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

// The whole of `text` as a base-10 integer of type T; nullopt if anything else is there.
template <typename T>
std::optional<T> ParseInteger(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::string ToLower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

std::string OrUnknown(std::string_view value) { return value.empty() ? std::string(kUnknown) : std::string(value); }

// ---------------------------------------------------------------- /proc/cpuinfo

// Keys naming the CPU model, most preferred first (see CpuInfo::model).
constexpr std::string_view kCpuModelKeys[] = {"model name", "Processor", "cpu model", "cpu"};

// Accumulates the per-processor blocks of /proc/cpuinfo.
class CpuInfoParser {
 public:
  void Line(std::string_view line) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    const std::string_view key = Trim(line.substr(0, colon));
    const std::string_view value = Trim(line.substr(colon + 1));
    if (key == "processor") {
      FinishBlock();
      in_block_ = true;
    } else if (key == "physical id") {
      package_ = ParseInteger<int>(value);
    } else if (key == "core id") {
      core_ = ParseInteger<int>(value);
    } else {
      RememberModel(key, value);
    }
  }

  CpuInfo Finish() {
    FinishBlock();
    CpuInfo info;
    for (const std::string& model : models_) {
      if (!model.empty()) {
        info.model = model;
        break;
      }
    }
    if (processors_ > 0) info.logical_cores = processors_;
    if (processors_ > 0 && every_block_has_ids_) info.physical_cores = CountPhysicalCores(ids_);
    return info;
  }

 private:
  void RememberModel(std::string_view key, std::string_view value) {
    for (size_t i = 0; i < std::size(kCpuModelKeys); ++i) {
      if (key == kCpuModelKeys[i] && models_[i].empty()) models_[i] = std::string(value);
    }
  }

  void FinishBlock() {
    if (in_block_) {
      ++processors_;
      if (package_ && core_) {
        ids_.emplace_back(*package_, *core_);
      } else {
        every_block_has_ids_ = false;
      }
    }
    in_block_ = false;
    package_.reset();
    core_.reset();
  }

  std::string models_[std::size(kCpuModelKeys)];
  int processors_ = 0;
  bool in_block_ = false;
  bool every_block_has_ids_ = true;
  std::optional<int> package_, core_;
  std::vector<std::pair<int, int>> ids_;
};

// ---------------------------------------------------------------- os-release

// The value of a KEY=VALUE os-release assignment without its quotes; nullopt when the
// quotes are unbalanced.
std::optional<std::string> UnquoteShellValue(std::string_view value) {
  if (value.empty() || (value.front() != '"' && value.front() != '\'')) {
    return std::string(value);
  }
  const char quote = value.front();
  if (value.size() < 2 || value.back() != quote) return std::nullopt;
  const std::string_view inner = value.substr(1, value.size() - 2);
  if (quote == '\'') return std::string(inner);
  std::string out;
  for (size_t i = 0; i < inner.size(); ++i) {
    if (inner[i] == '\\' && i + 1 < inner.size()) ++i;
    out += inner[i];
  }
  return out;
}

// ---------------------------------------------------------------- machine readers

std::string Hostname() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return kUnknown;
  return OrUnknown(name);
}

std::string OsName() {
  std::optional<std::string> text = MachineFile("/etc/os-release");
  if (!text) text = MachineFile("/usr/lib/os-release");  // the os-release(5) fallback
  return ParseOsRelease(text.value_or(""));
}

// uname -srm: "Linux 6.1.0-18-amd64 x86_64".
std::string KernelDescription() {
  struct utsname names {};
  if (uname(&names) != 0) return kUnknown;
  return std::string(names.sysname) + " " + names.release + " " + names.machine;
}

// Physical cores from /sys/devices/system/cpu/cpu*/topology. CPUs without topology files
// (offline ones) are skipped; an unreadable or malformed id makes the count unknown.
std::optional<int> SysfsPhysicalCores() {
  std::vector<std::pair<int, int>> ids;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/devices/system/cpu", error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0 || !ParseInteger<int>(std::string_view(name).substr(3))) {
      continue;
    }
    const std::string topology = entry.path().string() + "/topology/";
    const auto package = MachineFile(topology + "physical_package_id");
    const auto core = MachineFile(topology + "core_id");
    if (!package && !core) continue;
    const auto package_id = ParseInteger<int>(Trim(package.value_or("")));
    const auto core_id = ParseInteger<int>(Trim(core.value_or("")));
    if (!package_id || !core_id) return std::nullopt;
    ids.emplace_back(*package_id, *core_id);
  }
  if (error) return std::nullopt;
  return CountPhysicalCores(ids);
}

void FillCpu(v1::Environment* env) {
  const CpuInfo info = ParseCpuInfo(MachineFile("/proc/cpuinfo").value_or(""));
  env->set_cpu_model(info.model);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online > 0 && online <= std::numeric_limits<int>::max()) {
    env->set_logical_cores(static_cast<int>(online));
  } else if (info.logical_cores) {
    env->set_logical_cores(*info.logical_cores);
  }
  std::optional<int> physical = info.physical_cores;
  if (!physical) physical = SysfsPhysicalCores();
  if (physical) env->set_physical_cores(*physical);
}

void FillLoadAverages(v1::Environment* env) {
  double loads[3];
  const int n = getloadavg(loads, 3);
  if (n >= 1) env->set_load_average_1m(loads[0]);
  if (n >= 2) env->set_load_average_5m(loads[1]);
  if (n >= 3) env->set_load_average_15m(loads[2]);
}

// CPUs this process may run on; empty when sched_getaffinity fails. Grows the set for
// machines with more CPUs than the default cpu_set_t holds.
std::vector<int> AffinityCpus() {
  for (int capacity = CPU_SETSIZE; capacity <= (1 << 20); capacity *= 2) {
    cpu_set_t* set = CPU_ALLOC(capacity);
    if (set == nullptr) return {};
    const size_t bytes = CPU_ALLOC_SIZE(capacity);
    CPU_ZERO_S(bytes, set);
    std::vector<int> cpus;
    const bool ok = sched_getaffinity(0, bytes, set) == 0;
    const bool too_small = !ok && errno == EINVAL;
    for (int cpu = 0; ok && cpu < capacity; ++cpu) {
      if (CPU_ISSET_S(cpu, bytes, set)) cpus.push_back(cpu);
    }
    CPU_FREE(set);
    if (!too_small) return cpus;
  }
  return {};
}

}  // namespace

// ---------------------------------------------------------------- pure parsers

CpuInfo ParseCpuInfo(std::string_view cpuinfo) {
  CpuInfoParser parser;
  ForEachLine(cpuinfo, [&](std::string_view line) { parser.Line(line); });
  return parser.Finish();
}

std::optional<int> CountPhysicalCores(const std::vector<std::pair<int, int>>& package_core_ids) {
  if (package_core_ids.empty()) return std::nullopt;
  const std::set<std::pair<int, int>> unique(package_core_ids.begin(), package_core_ids.end());
  return static_cast<int>(unique.size());
}

std::string ParseOsRelease(std::string_view os_release) {
  constexpr std::string_view kKey = "PRETTY_NAME=";
  std::optional<std::string> pretty_name;
  ForEachLine(os_release, [&](std::string_view line) {
    line = Trim(line);
    if (line.substr(0, kKey.size()) == kKey) {
      pretty_name = UnquoteShellValue(Trim(line.substr(kKey.size())));
    }
  });
  return OrUnknown(pretty_name.value_or(""));
}

std::optional<int64_t> ParseMemTotal(std::string_view meminfo) {
  constexpr std::string_view kKey = "MemTotal:";
  std::optional<int64_t> bytes;
  ForEachLine(meminfo, [&](std::string_view line) {
    if (bytes || line.substr(0, kKey.size()) != kKey) return;
    const std::string_view rest = Trim(line.substr(kKey.size()));
    const size_t digits_end = std::min(rest.find_first_not_of("0123456789"), rest.size());
    const auto kib = ParseInteger<int64_t>(rest.substr(0, digits_end));
    if (!kib || Trim(rest.substr(digits_end)) != "kB") return;
    if (*kib > std::numeric_limits<int64_t>::max() / 1024) return;
    bytes = *kib * 1024;
  });
  return bytes;
}

std::string ParseSysfsWord(const std::optional<std::string>& text) { return OrUnknown(Trim(text.value_or(""))); }

std::string ParseTurbo(const std::optional<std::string>& intel_no_turbo,
                       const std::optional<std::string>& cpufreq_boost) {
  const std::string_view no_turbo = Trim(intel_no_turbo.value_or(""));
  if (no_turbo == "0") return "enabled";
  if (no_turbo == "1") return "disabled";
  const std::string_view boost = Trim(cpufreq_boost.value_or(""));
  if (boost == "1") return "enabled";
  if (boost == "0") return "disabled";
  return kUnknown;
}

std::string FormatCpuList(std::vector<int> cpus) {
  cpus.erase(std::remove_if(cpus.begin(), cpus.end(), [](int cpu) { return cpu < 0; }), cpus.end());
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  if (cpus.empty()) return kUnknown;
  std::string list;
  for (size_t first = 0; first < cpus.size();) {
    size_t last = first;
    while (last + 1 < cpus.size() && cpus[last + 1] == cpus[last] + 1) ++last;
    if (!list.empty()) list += ',';
    list += std::to_string(cpus[first]);
    if (last > first) list += "-" + std::to_string(cpus[last]);
    first = last + 1;
  }
  return list;
}

std::string FindBlasLibrary(std::string_view proc_maps) {
  std::optional<std::string> first, preferred;
  ForEachLine(proc_maps, [&](std::string_view line) {
    // Skip the five fixed fields; the pathname (which may hold spaces) is the rest.
    for (int field = 0; field < 5; ++field) {
      line = Trim(line);
      line.remove_prefix(std::min(line.find_first_of(kWhitespace), line.size()));
    }
    const std::string_view path = Trim(line);
    if (path.empty() || path.front() != '/') return;
    const std::string file_name = ToLower(path.substr(path.rfind('/') + 1));
    if (file_name.find("blas") == std::string::npos && file_name.find("mkl") == std::string::npos) {
      return;
    }
    if (!first) first = std::string(path);
    if (!preferred && file_name.rfind("libblas", 0) == 0) preferred = std::string(path);
  });
  return preferred.value_or(first.value_or(kUnknown));
}

std::string BuiltInBlas(std::string_view show_config) {
  const size_t at = show_config.find("BLAS_INFO=");
  if (at == std::string_view::npos) return kUnknown;
  std::string_view info = show_config.substr(at + 10);
  info = info.substr(0, std::min(info.find_first_of(", \n"), info.size()));
  if (info.empty()) return kUnknown;
  std::string name(info);
  if (info == "mkl") {
    name = "MKL";
    constexpr std::string_view kMklVersion = "Math Kernel Library Version ";
    if (const size_t v = show_config.find(kMklVersion); v != std::string_view::npos) {
      std::string_view version = show_config.substr(v + kMklVersion.size());
      version = version.substr(0, std::min(version.find_first_of("- \n"), version.size()));
      if (!version.empty()) name += " " + std::string(version);
    }
  }
  return name + " (linked into LibTorch, BLAS_INFO=" + std::string(info) + ")";
}

// ---------------------------------------------------------------- build facts

std::string CompilerDescription() {
#if defined(__clang__)
  return "clang " + std::string(Trim(__clang_version__));
#elif defined(__GNUC__)
  return "gcc " + std::string(Trim(__VERSION__));
#else
  return kUnknown;
#endif
}

std::string BuildType() {
#ifdef NDEBUG
  return "optimized";
#else
  return "debug";
#endif
}

// ---------------------------------------------------------------- capture

v1::Environment CaptureEnvironment() {
  v1::Environment env;
  env.set_hostname(Hostname());
  env.set_os(OsName());
  env.set_kernel(KernelDescription());
  FillCpu(&env);
  if (const auto bytes = ParseMemTotal(MachineFile("/proc/meminfo").value_or(""))) {
    env.set_memory_bytes(*bytes);
  }
  env.set_cpu_governor(ParseSysfsWord(MachineFile("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")));
  env.set_turbo(ParseTurbo(MachineFile("/sys/devices/system/cpu/intel_pstate/no_turbo"),
                           MachineFile("/sys/devices/system/cpu/cpufreq/boost")));
  FillLoadAverages(&env);
  env.set_compiler(CompilerDescription());
  env.set_build_type(BuildType());
  env.set_torchscan_version(kTorchScanVersion);
  env.set_captured_at(FormatRfc3339Utc(std::chrono::system_clock::now()));
  env.set_cpu_affinity(FormatCpuList(AffinityCpus()));
  return env;
}

}  // namespace torchscan
