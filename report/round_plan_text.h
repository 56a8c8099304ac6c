// One short sentence for a comparison's timing plan (Comparison.round_plan,
// proto/report.proto), shared by the renderers. No escaping: callers escape for their format.
#pragma once

#include <string>

#include "proto/report.pb.h"

namespace torchscan::report {

// rounds > 1: "10 alternating rounds (baseline, candidate, candidate, baseline, ...), each
// run timing 20.0 ms per round, 200 ms in all; warm-up and block size once per run (100 and
// 7 calls per block)", then "; " and the plan's note when it has fewer rounds than asked. rounds 1: "one pass of each
// run (baseline, candidate), 200 ms each; warm-up once per run". The order lists at most the first two rounds. "" when
// the plan was not recorded (rounds 0: compared from saved reports, or saved before plans existed).
std::string DescribeRoundPlan(const v1::RoundPlan& plan);

}  // namespace torchscan::report
