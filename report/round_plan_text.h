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

// A comparison's plan line: DescribeRoundPlan of its round_plan, then how the block sizing
// met a round's share ("a block lasts about 1.2 ms, about 4 per round's share"; a block
// longer than the share: "each round times one block of about 45 ms, longer than its share")
// and, when the comparison timed build pairs after the planned rounds, how many and to what
// end ("then 24 build pairs, both workloads built again, warmed up and timed for 4 rounds
// each, until the paired evidence decided at ±1.0% or the time cap"). "" when no plan was
// recorded.
std::string DescribeComparisonPlan(const v1::Comparison& comparison);

}  // namespace torchscan::report
