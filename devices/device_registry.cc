#include "devices/device_registry.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu_device.h"
#include "devices/cuda_device.h"
#include "devices/gpu_pin.h"
#include "devices/libtorch_cuda_runtime.h"

namespace torchscan::devices {
namespace {

struct DeviceType {
  const char* name;
  std::function<absl::StatusOr<std::unique_ptr<Device>>(const spec::DeviceName&)> open;
};

const std::vector<DeviceType>& Registry() {
  static const auto* const registry = new std::vector<DeviceType>{
      {"cpu", OpenCpuDevice},
      {"cuda",
       [](const spec::DeviceName& name) { return OpenCudaDevice(name, LibTorchCudaRuntime(), PinnedGpusHere()); }},
  };
  return *registry;
}

}  // namespace

std::vector<std::string> DeviceTypes() {
  std::vector<std::string> names;
  for (const DeviceType& type : Registry()) names.push_back(type.name);
  return names;
}

absl::StatusOr<std::unique_ptr<Device>> OpenDevice(absl::string_view requested) {
  absl::StatusOr<spec::DeviceName> parsed = spec::ParseDeviceName(requested);
  if (!parsed.ok()) return parsed.status();
  const std::string type = parsed->cuda ? "cuda" : "cpu";
  for (const DeviceType& known : Registry())
    if (type == known.name) return known.open(*parsed);
  return absl::InternalError(absl::StrCat("device type ", type, " has no implementation"));
}

}  // namespace torchscan::devices
