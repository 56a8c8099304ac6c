// Whether two workload specs time the same work: a key that is equal exactly when they
// build the same model (the module's bytes or daemon path, or the built-in), with the same
// inputs (generated, or the same tensor bytes or path), mode, dtype, layout, device and seed.
// Names given for display (source_name), metadata and work-unit labels do not count: two
// byte-identical modules uploaded from different paths have one key. Used so that a
// compare's forecast is only shown from a noise floor of the same workload
// (client/compare_forecast.h). Not a security digest: FNV-1a over the spec's deterministic
// serialization, stable across the programs built from one proto. Pure; no LibTorch.
#pragma once

#include <string>

#include "proto/workload.pb.h"

namespace torchscan::spec {

// "fnv1a64:<16 hex digits>".
std::string WorkloadKey(const v1::WorkloadSpec& workload);

}  // namespace torchscan::spec
