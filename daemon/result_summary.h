// A succeeded job's figures for its benchmark's history (ResultSummary), taken from its
// result: a measure job's report gives run "measured" and its timing summary; a compare
// job's comparison gives run "candidate" (the change being checked: Comparison.after) with
// the baseline's (Comparison.before) timing summary as baseline_latency. model, device and
// machine are the run's (BenchmarkReport.model, settings.device, MachineKey(environment):
// report/machine_key.h). gRPC-free.
#pragma once

#include <optional>

#include "proto/service.pb.h"

namespace torchscan::daemon {

// nullopt for a calibration's result, or a result that holds nothing.
std::optional<v1::ResultSummary> SummaryOfResult(const v1::JobResult& result);

}  // namespace torchscan::daemon
