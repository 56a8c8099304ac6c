// What the client says before a compare starts: what it expects the compare to resolve and
// about how long that takes, from the daemon's stored noise floor (its forecast of a compare
// at the defaults, core/decision_forecast.h). Only the daemon's saved figures are read.
#pragma once

#include <string>

#include "proto/report.pb.h"
#include "proto/service.pb.h"

namespace torchscan {

// One line for a decision-driven compare (`spec` a compare with rounds != 1 and not
// fixed_length) when `floor` holds a forecast: "expected here: changes of about 1.9% or more
// are claimed, and with no change it decides equivalent at ±1.0% after about 6.2 s (20 s at
// most); noise floor of 2026-12-02 08:10 UTC, linear (...)". It says when the compare asks a
// smallest change or time cap other than the forecast's, when the floor is stale, and when the
// floor's workload is not the compare's baseline (spec/workload_key.h; floors from before the
// key are not judged). "" when
// nothing applies (another job, a fixed-length compare, no forecast).
std::string CompareExpectation(const v1::JobSpec& spec, const v1::NoiseFloor& floor);

}  // namespace torchscan
