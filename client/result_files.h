// Loading the saved results that `render` and `compare-reports` take, with the command that
// fits when a file holds something else. No gRPC, no LibTorch.
//
// Every error is InvalidArgument (exit 2) naming the command and the path, and saying what
// the file seems to be and which command takes it:
//   - not JSON (a zip archive such as a saved TorchScript module or a torch.save tensor, an
//     HTML page, other binary or text): "render: model.pt is not a report or comparison JSON
//     file (it is a zip archive, such as a TorchScript module ...): render takes the
//     report.json or comparison.json that measure, compare, example, jobs fetch or
//     compare-reports wrote; to measure a module: torchscan-client measure --torchscript
//     model.pt --input SHAPE". The file's bytes are never echoed.
//   - a job file (JobSpec): run it with `torchscan-client measure --job FILE` (or compare).
//   - a comparison given to compare-reports: it already compares its two runs; render it.
// A file of the right kind is loaded strictly (report/report_json.h), with its errors.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "report/report_json.h"

namespace torchscan {

// For `render`: a report or a comparison.
absl::StatusOr<report::Evidence> LoadEvidenceForRender(const std::string& path);

// For `compare-reports`: a single report.
absl::StatusOr<v1::BenchmarkReport> LoadReportForCompare(const std::string& path);

}  // namespace torchscan
