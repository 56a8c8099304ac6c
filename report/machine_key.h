// What makes two measurements comparable, as one line of text: the hardware and software
// that measured them, taken from a report's Environment. Two history points with different
// keys were measured by different machines (or versions, or BLAS libraries); the history's
// renderers mark the change (MachineKeyChanges names what changed). gRPC-free, LibTorch-free.
//
// Format: "field=value; field=value; ..." with these fields, always all of them, in this order:
//   cpu        Environment.cpu_model
//   cores      "<logical_cores> logical, <physical_cores> physical"
//   memory     memory_bytes in GiB with one decimal, e.g. "15.6 GiB"
//   os         os
//   kernel     kernel
//   governor   cpu_governor
//   turbo      turbo
//   affinity   cpu_affinity
//   libtorch   libtorch_version
//   blas       the file name of blas_library (its resolved path), e.g. "libopenblasp-r0.3.21.so"
//   torchscan  torchscan_version
//   device     device_name
// A value that is empty or not set is "unknown". In a value, '\' is written "\\" and ';' is
// written "\;"; control characters (a key is one line) become spaces. Field names hold
// neither '=' nor ';' nor '\'.
// Left out on purpose: hostname (two identical lab machines are comparable), load averages
// and captured_at (they differ at every run), compiler and build flags (versions say it).
#pragma once

#include <string>
#include <vector>

#include "proto/report.pb.h"

namespace torchscan::report {

std::string MachineKey(const v1::Environment& environment);

// What differs between two keys, one line per field (in `after`'s order, then the fields only
// `before` has), e.g.
// "BLAS: libopenblasp-r0.3.21.so -> libmkl_rt.so" (the field's display name: CPU, cores,
// memory, OS, kernel, CPU governor, turbo, CPU affinity, LibTorch, BLAS, TorchScan, device).
// A field only one key has shows "(none)" on the other side; a field name this version does
// not know is shown as it is. Empty when the keys are equal, or when either is "" (a job
// without a summary: nothing known to compare). Never fails: a segment without '=' is a field
// with an empty value.
std::vector<std::string> MachineKeyChanges(const std::string& before, const std::string& after);

}  // namespace torchscan::report
