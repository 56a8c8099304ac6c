#include "devices/gpu_pin.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace torchscan::devices {
namespace {

std::optional<std::string> Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::nullopt : std::optional<std::string>(value);
}

// The daemon's entries of CUDA_VISIBLE_DEVICES, trimmed; empty when unset.
std::vector<std::string> Entries(const std::optional<std::string>& cuda_visible_devices) {
  std::vector<std::string> entries;
  if (!cuda_visible_devices.has_value()) return entries;
  for (absl::string_view entry : absl::StrSplit(*cuda_visible_devices, ','))
    entries.emplace_back(absl::StripAsciiWhitespace(entry));
  return entries;
}

// What CUDA_VISIBLE_DEVICES names the daemon's GPU `gpu` by.
std::string EntryOf(int gpu, const std::optional<std::string>& cuda_visible_devices) {
  const std::vector<std::string> entries = Entries(cuda_visible_devices);
  if (!cuda_visible_devices.has_value() || gpu >= static_cast<int>(entries.size())) return absl::StrCat(gpu);
  return entries[gpu];
}

}  // namespace

std::vector<std::string> PinEnvironment(const std::vector<int>& gpus,
                                        const std::optional<std::string>& cuda_visible_devices,
                                        const std::optional<std::string>& device_order) {
  std::vector<std::string> entries;
  for (int gpu : gpus) entries.push_back(EntryOf(gpu, cuda_visible_devices));
  std::vector<std::string> environment = {absl::StrCat("CUDA_VISIBLE_DEVICES=", absl::StrJoin(entries, ","))};
  if (!device_order.has_value()) environment.emplace_back("CUDA_DEVICE_ORDER=PCI_BUS_ID");
  environment.push_back(absl::StrCat(kPinnedGpusVariable, "=", absl::StrJoin(gpus, ",")));
  return environment;
}

std::string NearCpuList(int gpu, const std::optional<std::string>& cuda_visible_devices,
                        const std::optional<std::string>& device_order, const std::string& driver_gpus,
                        const std::string& sys_pci_devices) {
  if (device_order.has_value() && *device_order != "PCI_BUS_ID") return "";
  int physical = -1;
  if (!absl::SimpleAtoi(EntryOf(gpu, cuda_visible_devices), &physical) || physical < 0) return "";
  std::vector<std::string> bus_ids;
  std::error_code error;
  std::filesystem::directory_iterator it(driver_gpus, error);
  for (const std::filesystem::directory_iterator end; !error && it != end; it.increment(error))
    bus_ids.push_back(absl::AsciiStrToLower(it->path().filename().string()));
  if (error || physical >= static_cast<int>(bus_ids.size())) return "";
  std::sort(bus_ids.begin(), bus_ids.end());
  std::ifstream file(sys_pci_devices + "/" + bus_ids[physical] + "/local_cpulist");
  std::string line;
  if (!std::getline(file, line)) return "";
  return std::string(absl::StripAsciiWhitespace(line));
}

std::vector<std::string> PinEnvironmentHere(const std::vector<int>& gpus) {
  return PinEnvironment(gpus, Env("CUDA_VISIBLE_DEVICES"), Env("CUDA_DEVICE_ORDER"));
}

std::string NearCpuListHere(int gpu) {
  return NearCpuList(gpu, Env("CUDA_VISIBLE_DEVICES"), Env("CUDA_DEVICE_ORDER"), "/proc/driver/nvidia/gpus",
                     "/sys/bus/pci/devices");
}

int LocalGpuIndex(int index, const std::optional<std::string>& pinned) {
  if (!pinned.has_value()) return index;
  int position = 0;
  for (absl::string_view entry : absl::StrSplit(*pinned, ',')) {
    int gpu = -1;
    if (absl::SimpleAtoi(entry, &gpu) && gpu == index) return position;
    ++position;
  }
  return -1;
}

std::optional<std::string> PinnedGpusHere() { return Env(kPinnedGpusVariable); }

}  // namespace torchscan::devices
