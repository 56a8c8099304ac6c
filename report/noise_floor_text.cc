#include "report/noise_floor_text.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace torchscan::report {
namespace {

// "2026-12-01T10:00:00.000Z" as "2026-12-01 10:00 UTC"; other text as it is.
std::string When(const std::string& rfc3339) {
  if (rfc3339.size() >= 17 && rfc3339[10] == 'T' && rfc3339.back() == 'Z')
    return absl::StrCat(rfc3339.substr(0, 10), " ", rfc3339.substr(11, 5), " UTC");
  return rfc3339;
}

std::string Plural(int n, const char* one, const char* many) { return absl::StrCat(n, " ", n == 1 ? one : many); }

}  // namespace

std::string DescribeNoiseFloor(const v1::NoiseFloor& floor) {
  std::string text = floor.stale() ? absl::StrCat("Stale noise floor (", floor.stale_reason(), "): ") : "";
  const v1::DecisionForecast& f = floor.forecast();
  if (floor.has_forecast() && f.has_resolvable_change()) {
    // A compare at its defaults decides over build pairs: its forecast is the one figure.
    absl::StrAppend(&text, "A compare at its defaults resolves changes of about ",
                    absl::StrFormat("%.1f%%", f.resolvable_change() * 100), " or more here (claimed in 90% of ",
                    "simulated compares within ", absl::StrFormat("%g", f.max_time_s()),
                    " s; with no change it decides equivalent at \u00b1",
                    absl::StrFormat("%.1f%%", f.smallest_change() * 100), " in ",
                    absl::StrFormat("%.0f%%", f.equivalent_share() * 100), " of them, after about ",
                    absl::StrFormat("%.1f", f.median_stop_s()), " s)");
  } else if (floor.has_resolvable_change()) {
    absl::StrAppend(&text, "This machine resolves changes of about ",
                    absl::StrFormat("%.1f%%", floor.resolvable_change() * 100), " or more (paired claim, ",
                    absl::StrFormat("%.0f%%", floor.power() * 100), " power)");
  } else {
    absl::StrAppend(&text, "This machine's resolvable change is unknown (",
                    floor.note().empty() ? "not recorded" : floor.note(), ")");
  }
  absl::StrAppend(&text, "; the guide's label called ", floor.false_labels(), " of ",
                  Plural(floor.pairs(), "A/A pair", "A/A pairs"), " faster or slower (noise floor of ",
                  When(floor.measured_at()), ": ", Plural(floor.pairs(), "pair", "pairs"), ", min_run_time ",
                  floor.min_run_time_s(), " s, ", Plural(std::max(1, floor.rounds()), "round", "rounds"), ", ",
                  Plural(floor.intra_op_threads(), "thread", "threads"),
                  floor.device().empty() || floor.device() == "cpu" ? "" : ", " + floor.device(), ").");
  return text;
}

const v1::NoiseFloor* NoiseFloorOf(const Evidence& evidence) {
  if (const auto* c = std::get_if<v1::Comparison>(&evidence)) return c->has_noise_floor() ? &c->noise_floor() : nullptr;
  const auto& r = std::get<v1::BenchmarkReport>(evidence);
  return r.has_noise_floor() ? &r.noise_floor() : nullptr;
}

}  // namespace torchscan::report
