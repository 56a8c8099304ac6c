#include "report/validate.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace torchscan {
namespace {

absl::Status Error(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(field + ": " + what);
}

absl::Status CheckVersion(int found, int expected, const std::string& field) {
  if (found == expected) return absl::OkStatus();
  if (found == 0) return Error(field, absl::StrFormat("missing; this TorchScan reads schema_version %d", expected));
  return Error(field, absl::StrFormat("is %d but this TorchScan reads %d; re-create the file with this version "
                                      "or load it with the TorchScan that wrote it", found, expected));
}

}  // namespace

absl::Status ValidateReport(const v1::BenchmarkReport& r, int schema_version, const std::string& p) {
  if (absl::Status s = CheckVersion(r.schema_version(), schema_version, p + "schema_version"); !s.ok()) return s;
  if (!r.has_settings()) return Error(p + "settings", "missing; a report records how it was measured");
  if (!r.has_environment()) return Error(p + "environment", "missing; a report records where it was measured");
  if (!r.has_timing()) return Error(p + "timing", "missing; a report holds its timing blocks");
  if (r.timing().blocks().empty()) return Error(p + "timing.blocks", "missing or empty; keep every raw block");
  for (int i = 0; i < r.timing().blocks_size(); ++i) {
    const v1::TimingBlock& b = r.timing().blocks(i);
    const std::string field = absl::StrFormat("%stiming.blocks[%d]", p, i);
    if (b.calls() < 1) return Error(field + ".calls", absl::StrFormat("must be at least 1, got %d", b.calls()));
    if (!std::isfinite(b.duration_s()) || b.duration_s() < 0)
      return Error(field + ".duration_s", absl::StrFormat("must be a finite number of seconds >= 0, got %g", b.duration_s()));
  }
  if (r.timing().summary().block_count() != r.timing().blocks_size())
    return Error(p + "timing.summary.block_count",
                 absl::StrFormat("is %d but timing.blocks holds %d blocks; the file was edited or truncated",
                                 r.timing().summary().block_count(), r.timing().blocks_size()));
  if (!(r.work_units() > 0) || !std::isfinite(r.work_units()))
    return Error(p + "work_units", absl::StrFormat("must be a positive number of units per call, got %g", r.work_units()));
  if (r.work_unit().empty()) return Error(p + "work_unit", "missing; name the unit of work, e.g. \"samples\"");
  return absl::OkStatus();
}

absl::Status ValidateComparison(const v1::Comparison& c, int schema_version) {
  if (absl::Status s = CheckVersion(c.schema_version(), schema_version, "schema_version"); !s.ok()) return s;
  if (!c.has_before()) return Error("before", "missing; a comparison holds both reports");
  if (!c.has_after()) return Error("after", "missing; a comparison holds both reports");
  if (!c.has_output_check()) return Error("output_check", "missing; record not_provided when no check ran");
  if (!c.has_compatibility()) return Error("compatibility", "missing");
  if (absl::Status s = ValidateReport(c.before(), schema_version, "before."); !s.ok()) return s;
  return ValidateReport(c.after(), schema_version, "after.");
}

}  // namespace torchscan
