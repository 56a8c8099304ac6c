#include "devices/visible_gpus.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace torchscan::devices {

namespace {

// Entries of `folder` that `counts`; -1 when the folder cannot be read.
template <typename Counts>
int CountEntries(const std::string& folder, Counts counts) {
  std::error_code error;
  std::filesystem::directory_iterator it(folder, error);
  if (error) return -1;
  int n = 0;
  for (const std::filesystem::directory_iterator end; !error && it != end; it.increment(error))
    if (counts(*it)) ++n;
  return n;
}

// nvidia0, nvidia1 ...: a GPU each (not nvidiactl, nvidia-uvm, nvidia-caps).
bool IsGpuNode(const std::filesystem::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  return name.size() > 6 && absl::StartsWith(name, "nvidia") &&
         std::all_of(name.begin() + 6, name.end(), [](char c) { return absl::ascii_isdigit(c); });
}

}  // namespace

int VisibleGpus(const std::string& driver_gpus, const std::string& dev,
                const std::optional<std::string>& cuda_visible_devices) {
  int driver = CountEntries(driver_gpus, [](const std::filesystem::directory_entry& e) {
    std::error_code error;
    return e.is_directory(error);
  });
  if (driver < 0) driver = std::max(0, CountEntries(dev, IsGpuNode));
  if (!cuda_visible_devices.has_value()) return driver;
  int visible = 0;
  for (absl::string_view entry : absl::StrSplit(*cuda_visible_devices, ',')) {
    entry = absl::StripAsciiWhitespace(entry);
    int index = -1;
    const bool named = absl::StartsWith(entry, "GPU-") || absl::StartsWith(entry, "MIG-");
    if (!named && (!absl::SimpleAtoi(entry, &index) || index < 0 || index >= driver)) break;
    ++visible;
  }
  return std::min(visible, driver);
}

int VisibleGpusHere() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return VisibleGpus("/proc/driver/nvidia/gpus", "/dev",
                     visible == nullptr ? std::nullopt : std::optional<std::string>(visible));
}

}  // namespace torchscan::devices
