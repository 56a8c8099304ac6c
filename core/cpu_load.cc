#include "core/cpu_load.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace torchscan {
namespace {

// Fields of a per-CPU line after its name: user nice system idle iowait irq softirq [steal
// guest guest_nice]. Busy: user, nice, system, irq, softirq.
constexpr int kBusyFields[] = {0, 1, 2, 5, 6};
constexpr int kMinCpuFields = 7;

// Debian's abseil has its own string_view, which StrCat and StrSplit take.
absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }

double Share(double other_s, double interval_s, int cpu_count) {
  const double whole = interval_s * cpu_count;
  if (!(whole > 0)) return 0;
  return std::clamp(other_s / whole, 0.0, 1.0);
}

}  // namespace

absl::StatusOr<std::map<int, int64_t>> ParseProcStatBusyTicks(std::string_view proc_stat) {
  std::map<int, int64_t> busy;
  for (absl::string_view line : absl::StrSplit(A(proc_stat), '\n')) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (f.empty() || !absl::ConsumePrefix(&f[0], "cpu") || f[0].empty()) continue;  // not a cpuN line
    int cpu = 0;
    if (!absl::SimpleAtoi(f[0], &cpu) || cpu < 0)
      return absl::InvalidArgumentError(absl::StrCat("/proc/stat: bad CPU line \"", line, "\""));
    if (static_cast<int>(f.size()) - 1 < kMinCpuFields)
      return absl::InvalidArgumentError(
          absl::StrCat("/proc/stat: CPU line \"", line, "\" has fewer than ", kMinCpuFields, " counters"));
    int64_t ticks = 0;
    for (int i : kBusyFields) {
      int64_t v = 0;
      if (!absl::SimpleAtoi(f[i + 1], &v) || v < 0)
        return absl::InvalidArgumentError(absl::StrCat("/proc/stat: bad counter \"", f[i + 1], "\" in \"", line, "\""));
      ticks += v;
    }
    busy[cpu] = ticks;
  }
  if (busy.empty()) return absl::InvalidArgumentError("/proc/stat: no per-CPU (cpuN) line");
  return busy;
}

absl::StatusOr<int64_t> ParseSelfStatCpuTicks(std::string_view self_stat) {
  // After the last ')' come fields 3 (state) onward; utime and stime are fields 14 and 15.
  const size_t close = self_stat.rfind(')');
  if (close == std::string_view::npos) return absl::InvalidArgumentError("/proc/self/stat: no \"(comm)\" field");
  std::vector<absl::string_view> f = absl::StrSplit(A(self_stat.substr(close + 1)), ' ', absl::SkipEmpty());
  constexpr size_t kUtime = 14 - 3, kStime = 15 - 3;
  int64_t utime = 0, stime = 0;
  if (f.size() <= kStime || !absl::SimpleAtoi(f[kUtime], &utime) || !absl::SimpleAtoi(f[kStime], &stime) || utime < 0 ||
      stime < 0)
    return absl::InvalidArgumentError("/proc/self/stat: utime and stime (fields 14 and 15) missing or not counters");
  return utime + stime;
}

absl::StatusOr<double> ParseLoadavg1m(std::string_view loadavg) {
  std::vector<absl::string_view> f = absl::StrSplit(A(loadavg), ' ', absl::SkipEmpty());
  double v = 0;
  if (f.empty() || !absl::SimpleAtod(f[0], &v) || !std::isfinite(v) || v < 0)
    return absl::InvalidArgumentError(
        absl::StrCat("/proc/loadavg: \"", A(loadavg), "\" does not start with a load figure"));
  return v;
}

std::string DescribeCpuSet(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    absl::StrAppend(&out, out.empty() ? "" : ",", cpus[i]);
    if (j > i) absl::StrAppend(&out, "-", cpus[j]);
    i = j + 1;
  }
  return out;
}

absl::StatusOr<v1::TimingLoad> LoadBetween(const CpuLoadSample& start, const CpuLoadSample& end,
                                           const std::vector<int>& cpus, double ticks_per_s) {
  if (cpus.empty()) return absl::InvalidArgumentError("cpus: empty CPU set");
  if (!(ticks_per_s > 0)) return absl::InvalidArgumentError("ticks_per_s: must be > 0");
  const double interval_s = end.monotonic_s - start.monotonic_s;
  if (!(interval_s > 0)) return absl::InvalidArgumentError("the end sample is not after the start sample");
  if (end.self_ticks < start.self_ticks) return absl::InvalidArgumentError("this process's CPU time went backwards");
  std::vector<int> unique = cpus;
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  const std::string set = DescribeCpuSet(unique);
  int64_t busy = 0;
  for (int cpu : unique) {
    const auto a = start.busy_ticks.find(cpu), b = end.busy_ticks.find(cpu);
    if (a == start.busy_ticks.end() || b == end.busy_ticks.end())
      return absl::InvalidArgumentError(absl::StrCat("CPU ", cpu, " of the set ", set, " is missing from /proc/stat"));
    if (b->second < a->second)
      return absl::InvalidArgumentError(absl::StrCat("CPU ", cpu, "'s busy time went backwards"));
    busy += b->second - a->second;
  }
  v1::TimingLoad load;
  load.set_other_cpu_s(static_cast<double>(busy - (end.self_ticks - start.self_ticks)) / ticks_per_s);
  load.set_interval_s(interval_s);
  load.set_cpus(set);
  load.set_cpu_count(static_cast<int>(unique.size()));
  load.set_other_cpu_share(Share(load.other_cpu_s(), interval_s, load.cpu_count()));
  load.set_loadavg_1m_start(start.loadavg_1m);
  load.set_loadavg_1m_end(end.loadavg_1m);
  return load;
}

void PoolTimingLoad(const v1::TimingLoad& later, v1::TimingLoad* pooled) {
  if (!(pooled->interval_s() > 0)) {
    *pooled = later;
    return;
  }
  pooled->set_other_cpu_s(pooled->other_cpu_s() + later.other_cpu_s());
  pooled->set_interval_s(pooled->interval_s() + later.interval_s());
  pooled->set_loadavg_1m_end(later.loadavg_1m_end());
  pooled->set_other_cpu_share(Share(pooled->other_cpu_s(), pooled->interval_s(), pooled->cpu_count()));
}

std::optional<v1::Warning> BusyMachineWarning(const v1::TimingLoad& load, const std::string& whose, double limit) {
  if (!(load.interval_s() > 0) || !(load.other_cpu_share() > limit)) return std::nullopt;
  v1::Warning w;
  w.set_code("busy_machine");
  w.set_message(absl::StrFormat(
      "other processes used %.0f%% of CPUs %s during %s timing (1-minute load %.2f to %.2f); results may be noisy: "
      "rerun when the machine is idle, or give torchscand a CPU set (cpu_set) no other work uses",
      100 * load.other_cpu_share(), load.cpus(), whose, load.loadavg_1m_start(), load.loadavg_1m_end()));
  return w;
}

}  // namespace torchscan
