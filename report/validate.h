// Required parts of loaded reports and comparisons, beyond what the JSON mapping checks.
// Each error is InvalidArgument "<field path>: <what is wrong and the fix>".
#pragma once

#include <string>

#include "absl/status/status.h"
#include "proto/report.pb.h"

namespace torchscan {

// schema_version equal to `schema_version`; settings, environment and timing present;
// at least one timing block; every block with calls >= 1 and a finite duration >= 0;
// summary.block_count equal to the number of blocks; work_units > 0 and a work_unit.
// `prefix` is prepended to field paths ("before." inside a comparison).
absl::Status ValidateReport(const v1::BenchmarkReport& report, int schema_version, const std::string& prefix = "");

// schema_version, output_check, compatibility and both reports present and valid.
absl::Status ValidateComparison(const v1::Comparison& comparison, int schema_version);

}  // namespace torchscan
