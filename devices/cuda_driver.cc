#include "devices/cuda_driver.h"

#include <dlfcn.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/environment.h"

namespace torchscan::devices {
namespace {

// The driver API's calls this file makes, as cuda.h declares them (CUresult is an int, 0 is
// CUDA_SUCCESS; a CUdevice is an int).
using CuInit = int (*)(unsigned int);
using CuDriverGetVersion = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetName = int (*)(char*, int, int);
using CuDeviceTotalMem = int (*)(size_t*, int);
using CuDeviceGetAttribute = int (*)(int*, int, int);
using CuDeviceGetPciBusId = int (*)(char*, int, int);
// cuda.h's CUdevice_attribute values.
constexpr int kClockRateKhz = 13;
constexpr int kMultiprocessors = 16;
constexpr int kEccEnabled = 32;
constexpr int kMemoryClockRateKhz = 36;
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;
// NVML's (nvml.h): nvmlReturn_t 0 is NVML_SUCCESS; nvmlEnableState_t 1 is enabled.
using NvmlInit = int (*)();
using NvmlDeviceGetHandleByPciBusId = int (*)(const char*, void**);
using NvmlDeviceGetPersistenceMode = int (*)(void*, int*);
using NvmlDeviceGetClockInfo = int (*)(void*, int, unsigned int*);
using NvmlDeviceGetClocksEventReasons = int (*)(void*, unsigned long long*);
using NvmlDeviceGetComputeRunningProcesses = int (*)(void*, unsigned int*, void*);
constexpr int kNvmlClockSm = 1;                // NVML_CLOCK_SM
constexpr int kNvmlErrorInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE

// The library's handle (it stays loaded: LibTorch's CUDA runtime uses it too), or nullptr with
// why in `unreadable`.
void* Open(const char* library, std::vector<std::string>* unreadable) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    unreadable->push_back(absl::StrCat(library, " cannot be loaded (", why == nullptr ? "unknown error" : why, ")"));
  }
  return handle;
}

template <typename Function>
Function Find(void* handle, const char* name) {
  return handle == nullptr ? nullptr : reinterpret_cast<Function>(dlsym(handle, name));
}

// Runs `read` when the symbol exists; false (and why in `unreadable`) when it is missing or fails.
template <typename Function, typename... Args>
bool Call(Function f, const char* name, std::vector<std::string>* unreadable, Args... args) {
  if (f == nullptr) {
    unreadable->push_back(absl::StrCat(name, " is missing"));
    return false;
  }
  if (const int code = f(args...); code != 0) {
    unreadable->push_back(absl::StrCat(name, " returned ", code));
    return false;
  }
  return true;
}

// NVML's handle of the GPU at `pci_bus_id` (initialising NVML once), or nullptr with why.
void* NvmlDevice(const std::string& pci_bus_id, void** nvml, std::vector<std::string>* unreadable) {
  *nvml = Open("libnvidia-ml.so.1", unreadable);
  void* device = nullptr;
  if (*nvml == nullptr || !Call(Find<NvmlInit>(*nvml, "nvmlInit_v2"), "nvmlInit_v2", unreadable) ||
      !Call(Find<NvmlDeviceGetHandleByPciBusId>(*nvml, "nvmlDeviceGetHandleByPciBusId_v2"),
            "nvmlDeviceGetHandleByPciBusId_v2", unreadable, pci_bus_id.c_str(), &device))
    return nullptr;
  return device;
}

// The persistence mode of the GPU at `pci_bus_id`, through NVML.
std::string PersistenceMode(const std::string& pci_bus_id, std::vector<std::string>* unreadable) {
  void* nvml = nullptr;
  void* device = NvmlDevice(pci_bus_id, &nvml, unreadable);
  int mode = 0;
  if (device == nullptr || !Call(Find<NvmlDeviceGetPersistenceMode>(nvml, "nvmlDeviceGetPersistenceMode"),
                                 "nvmlDeviceGetPersistenceMode", unreadable, device, &mode))
    return kUnknown;
  return mode == 1 ? "enabled" : "disabled";
}

// The driver's handle (CUdevice) of CUDA device `ordinal` through libcuda.so.1 `cuda`, the
// driver initialised first; nullopt with why when it cannot be had.
std::optional<int> DriverDevice(void* cuda, int ordinal, std::vector<std::string>* unreadable) {
  int device = 0;
  if (cuda == nullptr || !Call(Find<CuInit>(cuda, "cuInit"), "cuInit", unreadable, 0u) ||
      !Call(Find<CuDeviceGet>(cuda, "cuDeviceGet"), "cuDeviceGet", unreadable, &device, ordinal))
    return std::nullopt;
  return device;
}

// The PCI bus id of the driver's `device` ("" with why when unreadable).
std::string PciBusId(void* cuda, int device, std::vector<std::string>* unreadable) {
  char text[64] = {};
  if (!Call(Find<CuDeviceGetPciBusId>(cuda, "cuDeviceGetPCIBusId"), "cuDeviceGetPCIBusId", unreadable, text,
            static_cast<int>(sizeof(text) - 1), device))
    return "";
  return text;
}

}  // namespace

std::string FormatCudaVersion(int version) {
  if (version <= 0) return kUnknown;
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

void DescribeFromDriver(int ordinal, v1::Environment* env) {
  env->set_device_name(kUnknown);
  env->set_cuda_driver(kUnknown);
  v1::GpuFacts* gpu = env->mutable_gpu();
  gpu->set_compute_capability(kUnknown);
  gpu->set_ecc(kUnknown);
  gpu->set_persistence_mode(kUnknown);
  std::vector<std::string> unreadable;
  void* cuda = Open("libcuda.so.1", &unreadable);
  int version = 0;
  if (Call(Find<CuDriverGetVersion>(cuda, "cuDriverGetVersion"), "cuDriverGetVersion", &unreadable, &version))
    env->set_cuda_driver(FormatCudaVersion(version));
  if (const std::optional<int> found = DriverDevice(cuda, ordinal, &unreadable)) {
    const int device = *found;
    char text[256] = {};
    if (Call(Find<CuDeviceGetName>(cuda, "cuDeviceGetName"), "cuDeviceGetName", &unreadable, text,
             static_cast<int>(sizeof(text) - 1), device) &&
        text[0] != '\0')
      env->set_device_name(text);
    size_t bytes = 0;
    if (Call(Find<CuDeviceTotalMem>(cuda, "cuDeviceTotalMem_v2"), "cuDeviceTotalMem_v2", &unreadable, &bytes, device))
      gpu->set_memory_bytes(static_cast<int64_t>(bytes));
    const auto attribute = [&](int which, const char* what, int* value) {
      return Call(Find<CuDeviceGetAttribute>(cuda, "cuDeviceGetAttribute"), what, &unreadable, value, which, device);
    };
    int major = 0, minor = 0, value = 0;
    if (attribute(kComputeCapabilityMajor, "compute capability (major)", &major) &&
        attribute(kComputeCapabilityMinor, "compute capability (minor)", &minor))
      gpu->set_compute_capability(absl::StrCat(major, ".", minor));
    if (attribute(kMultiprocessors, "multiprocessor count", &value)) gpu->set_multiprocessors(value);
    if (attribute(kClockRateKhz, "clock rate", &value)) gpu->set_max_sm_clock_mhz(value / 1000);
    if (attribute(kMemoryClockRateKhz, "memory clock rate", &value)) gpu->set_max_memory_clock_mhz(value / 1000);
    if (attribute(kEccEnabled, "ECC", &value)) gpu->set_ecc(value != 0 ? "enabled" : "disabled");
    if (const std::string bus = PciBusId(cuda, device, &unreadable); !bus.empty()) {
      gpu->set_pci_bus_id(bus);
      gpu->set_persistence_mode(PersistenceMode(bus, &unreadable));
    }
  }
  gpu->set_unreadable(absl::StrJoin(unreadable, "; "));
}

DeviceState ReadDriverState(int ordinal) {
  DeviceState state;
  std::vector<std::string> unreadable;
  void* cuda = Open("libcuda.so.1", &unreadable);
  const std::optional<int> driver_device = DriverDevice(cuda, ordinal, &unreadable);
  const std::string bus = driver_device ? PciBusId(cuda, *driver_device, &unreadable) : "";
  void* nvml = nullptr;
  void* device = bus.empty() ? nullptr : NvmlDevice(bus, &nvml, &unreadable);
  if (device == nullptr) return state;
  unsigned int mhz = 0;
  if (Call(Find<NvmlDeviceGetClockInfo>(nvml, "nvmlDeviceGetClockInfo"), "nvmlDeviceGetClockInfo", &unreadable, device,
           kNvmlClockSm, &mhz))
    state.sm_clock_mhz = static_cast<int>(mhz);
  // Renamed from ...ThrottleReasons in newer drivers; both names mean the same bits.
  auto reasons_of = Find<NvmlDeviceGetClocksEventReasons>(nvml, "nvmlDeviceGetCurrentClocksEventReasons");
  if (reasons_of == nullptr)
    reasons_of = Find<NvmlDeviceGetClocksEventReasons>(nvml, "nvmlDeviceGetCurrentClocksThrottleReasons");
  unsigned long long reasons = 0;
  if (Call(reasons_of, "nvmlDeviceGetCurrentClocksEventReasons", &unreadable, device, &reasons))
    state.throttle_reasons = reasons;
  // With no room for their details, NVML says how many compute processes there are; one of
  // them is this process, whose CUDA context is open.
  auto processes_of = Find<NvmlDeviceGetComputeRunningProcesses>(nvml, "nvmlDeviceGetComputeRunningProcesses_v3");
  unsigned int count = 0;
  if (processes_of != nullptr) {
    const int code = processes_of(device, &count, nullptr);
    if (code == 0 || code == kNvmlErrorInsufficientSize) state.other_processes = count > 0 ? count - 1 : 0;
  }
  return state;
}

}  // namespace torchscan::devices
