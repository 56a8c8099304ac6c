// The guide's compatibility rules for comparing a before and an after report.
//
// Blocking (each a named Mismatch; deltas and the label are then withheld): hardware
// (environment.cpu_model, logical_cores, physical_cores, memory_bytes, device_name and
// settings.device), versions (environment.libtorch_version, libtorch_cuda, compiler,
// torchscan_version, cuda_runtime), caller-supplied input metadata (every tensor and every
// field: input seeds, tensor-file fingerprints, the caller's keys such as dataset_revision),
// and the work-unit definition (work_units, work_unit). Hardware identity must be known:
// environment.cpu_model or device_name "unknown" (or empty) on both sides is a Mismatch too
// (before and after both "unknown"): equal ignorance is not the same machine.
//
// Not blocking, listed as changed settings so that e.g. a thread-count experiment stays
// possible and visible: every other setting (threads, timing settings, order, excluded
// scope), the workload description (the change under test: model and model_revision,
// method, dtype, execution mode, freeze, optimize_for_inference, channels_last...), and the
// remaining environment facts (BLAS library, governor, turbo, affinity, host, kernel,
// LibTorch path and build flags). Load averages and capture times always differ and are
// not listed.
#pragma once

#include "proto/report.pb.h"

namespace torchscan {

v1::Compatibility CheckCompatibility(const v1::BenchmarkReport& before, const v1::BenchmarkReport& after);

google::protobuf::RepeatedPtrField<v1::SettingChange> ChangedSettings(const v1::BenchmarkReport& before,
                                                                      const v1::BenchmarkReport& after);

}  // namespace torchscan
