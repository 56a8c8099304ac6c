// One sentence for a machine's noise floor (proto/report.proto NoiseFloor), shared by the
// renderers (HTML, terminal, markdown) and the client's `calibrate` and `info`: what changes
// this machine can resolve, and how often the guide's label was wrong on A/A pairs. Only
// reads what was saved; the guide's label rule is not touched. No escaping: callers escape
// for their format.
#pragma once

#include <string>

#include "proto/report.pb.h"
#include "report/report_json.h"

namespace torchscan::report {

// With a forecast (NoiseFloor.forecast, a compare at its defaults) that resolves a change, it is
// the figure: "A compare at its defaults resolves changes of about 1.9% or more here (claimed in
// 90% of simulated compares within 20 s; with no change it decides equivalent at ±1.0% in 94%
// of them, after about 6.2 s of timing); the guide's label ...". Otherwise the fixed-length
// pairs' own figure:
// "This machine resolves changes of about 3.1% or more (paired claim, 90% power); the guide's
// label called 2 of 20 A/A pairs faster or slower (noise floor of 2026-12-01 10:00 UTC: 20
// pairs, min_run_time 0.2 s, 10 rounds, 1 thread)." Without a resolvable change: "This
// machine's resolvable change is unknown (<note>); the guide's label ...". When stale, led by
// "Stale noise floor (<stale_reason>): ". A measured_at that is not RFC 3339 is shown as saved.
std::string DescribeNoiseFloor(const v1::NoiseFloor& floor);

// The noise floor the evidence carries (a comparison's, or a report's), or nullptr when it has
// none.
const v1::NoiseFloor* NoiseFloorOf(const Evidence& evidence);

}  // namespace torchscan::report
