// What a job's result says about itself, so that titles and summaries can tell runs apart:
// the job's label (--label) on the report or comparison and on each of its runs, and each
// run's model name. No LibTorch, no gRPC.
#pragma once

#include <string>

#include "proto/service.pb.h"

// (Namespace torchscan::daemon kept from when the worker lived in daemon/.)
namespace torchscan::worker {

// The model's name for titles: a built-in's enum name ("resnet18"), else the file name (no
// folders) of the TorchScript module's source_name, else of its path, else "TorchScript
// module". Never fails.
std::string ModelName(const v1::WorkloadSpec& workload);

// Sets spec.label() as `label` of the report, or of the comparison and both its runs, and
// each run's `model` from its workload (before: the baseline, after: the candidate). A result
// holding neither kind is left unchanged.
void LabelResult(const v1::JobSpec& spec, v1::JobResult* result);

}  // namespace torchscan::worker
