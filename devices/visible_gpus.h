// How many CUDA devices a process of this machine would see, without CUDA or LibTorch (the
// daemon links neither): the NVIDIA driver's GPUs (one folder each under
// /proc/driver/nvidia/gpus; in a container without it, one /dev/nvidiaN node each), narrowed by
// CUDA_VISIBLE_DEVICES as the CUDA runtime reads it.
// A daemon whose configuration lists no devices offers the CPU and these (daemon/config.h).
#pragma once

#include <optional>
#include <string>

namespace torchscan::devices {

// The driver's GPUs in `driver_gpus` (a folder per GPU), or when that folder is missing the
// nodes nvidia0, nvidia1 ... in `dev` (0 when neither: no NVIDIA driver), then, when
// `cuda_visible_devices` is set, as many as its entries the CUDA
// runtime would take: comma-separated, up to the first that is not a device index, UUID
// ("GPU-...") or MIG name ("MIG-..."), or names an index past the driver's GPUs; "" or "-1":
// none. Never more than the driver's GPUs.
int VisibleGpus(const std::string& driver_gpus, const std::string& dev,
                const std::optional<std::string>& cuda_visible_devices);

// VisibleGpus("/proc/driver/nvidia/gpus", "/dev", $CUDA_VISIBLE_DEVICES).
int VisibleGpusHere();

}  // namespace torchscan::devices
