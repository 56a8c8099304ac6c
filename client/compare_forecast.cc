#include "client/compare_forecast.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/spec_limits.h"
#include "spec/workload_key.h"

namespace torchscan {
namespace {

std::string Percent(double fraction) { return absl::StrFormat("%.1f%%", 100 * fraction); }

}  // namespace

std::string CompareExpectation(const v1::JobSpec& spec, const v1::NoiseFloor& floor) {
  if (!spec.has_compare() || spec.compare().fixed_length() || spec.compare().rounds() == 1) return "";
  if (!floor.has_forecast()) return "";
  const v1::DecisionForecast& f = floor.forecast();
  const double smallest =
      spec.compare().smallest_change() > 0 ? spec.compare().smallest_change() : kDefaultSmallestChange;
  const double cap = spec.compare().max_time_s() > 0 ? spec.compare().max_time_s() : kDefaultCompareMaxTimeS;
  std::string line = "expected here: ";
  if (f.has_resolvable_change()) {
    absl::StrAppend(&line, "changes of about ", Percent(f.resolvable_change()), " or more are claimed");
  } else {
    absl::StrAppend(&line, "no change up to 50% is claimed in 90% of compares");
  }
  absl::StrAppend(&line, ", and with no change it decides equivalent at \u00b1", Percent(f.smallest_change()),
                  " after about ", absl::StrFormat("%.1f", f.median_stop_s()), " s (",
                  absl::StrFormat("%g", f.max_time_s()), " s at most; ", std::lround(100 * f.equivalent_share()),
                  "% decide within it)");
  if (std::fabs(smallest - f.smallest_change()) > 1e-12 || std::fabs(cap - f.max_time_s()) > 1e-9)
    absl::StrAppend(&line, "; forecast at \u00b1", Percent(f.smallest_change()), " and ",
                    absl::StrFormat("%g", f.max_time_s()), " s, this compare asks \u00b1", Percent(smallest), " and ",
                    absl::StrFormat("%g", cap), " s");
  absl::StrAppend(&line, "; from the noise floor of ", floor.measured_at(), ", ", floor.workload());
  if (!floor.workload_key().empty() && floor.workload_key() != spec::WorkloadKey(spec.compare().baseline()))
    absl::StrAppend(&line,
                    ", not this compare's workload: what a compare resolves and how long it takes depend on the "
                    "workload (`torchscan-client calibrate` with the baseline's model and input flags forecasts "
                    "this one)");
  if (floor.stale()) absl::StrAppend(&line, ", stale: ", floor.stale_reason());
  return line;
}

}  // namespace torchscan
