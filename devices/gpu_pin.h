// Pinning a job's worker to the GPUs it runs on, without CUDA or LibTorch: the daemon gives
// each GPU job's worker only its GPUs (CUDA_VISIBLE_DEVICES) and the CPUs near them; the worker
// finds the job's cuda:N among what it was given.
//
// Numbering: a daemon's cuda:N is the N-th GPU its own CUDA_VISIBLE_DEVICES lets it see (all
// of the driver's when unset), in the order CUDA_DEVICE_ORDER sets; pinned workers get
// CUDA_DEVICE_ORDER=PCI_BUS_ID unless the daemon's environment sets an order, so that cuda:N
// is the N-th GPU by PCI bus id, as nvidia-smi and the driver's folders number them.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace torchscan::devices {

// The variable a pinned worker finds its GPUs in: the daemon's indices of the GPUs it was
// given, comma-separated, in the order CUDA_VISIBLE_DEVICES gives them (e.g. "3" or "1,3").
inline constexpr char kPinnedGpusVariable[] = "TORCHSCAN_PINNED_GPUS";

// The environment ("NAME=value") that pins a worker to the daemon's GPUs `gpus` (ascending),
// given the daemon's own CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER: CUDA_VISIBLE_DEVICES with
// their entries (the daemon's entries at those positions, UUIDs included; else the indices),
// CUDA_DEVICE_ORDER=PCI_BUS_ID when `device_order` is unset, and kPinnedGpusVariable.
std::vector<std::string> PinEnvironment(const std::vector<int>& gpus,
                                        const std::optional<std::string>& cuda_visible_devices,
                                        const std::optional<std::string>& device_order);

// The CPUs near the daemon's GPU `gpu` as the kernel lists them ("0-15,32-47": the
// local_cpulist of its PCI device under `sys_pci_devices`), found through the driver's folder
// of GPUs (`driver_gpus`, one per PCI bus id, taken in bus order). "" when that cannot be
// known: no such folder or file, a UUID entry in CUDA_VISIBLE_DEVICES, or a device order other
// than PCI_BUS_ID.
std::string NearCpuList(int gpu, const std::optional<std::string>& cuda_visible_devices,
                        const std::optional<std::string>& device_order, const std::string& driver_gpus,
                        const std::string& sys_pci_devices);

// The same three, for this process: its environment, /proc/driver/nvidia/gpus and
// /sys/bus/pci/devices.
std::vector<std::string> PinEnvironmentHere(const std::vector<int>& gpus);
std::string NearCpuListHere(int gpu);

// The ordinal this process's CUDA runtime gives the job's cuda:`index`: its position in
// `pinned` (kPinnedGpusVariable's value), or `index` itself in a process not pinned
// (nullopt). -1 when the worker was pinned to other GPUs.
int LocalGpuIndex(int index, const std::optional<std::string>& pinned);
// kPinnedGpusVariable in this process's environment.
std::optional<std::string> PinnedGpusHere();

}  // namespace torchscan::devices
