// The rounds of a run timed in alternating rounds (core/round_plan.h), recorded in its
// Timing: which blocks each round timed, where it stood in its round, and its own median, so
// that order effects show and rounds can be paired. No LibTorch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proto/report.pb.h"

namespace torchscan {

// Appends TimingRound `index` (1-based) at `position` ("first" or "second"), timed with build
// pair `unit` (1-based), to `timing`: its blocks are timing->blocks [first_block, first_block +
// block_count), and its median is theirs (per-call, type 7). A range outside the blocks is
// clamped to them (median 0 when empty).
void AddTimingRound(int index, const std::string& position, int64_t first_block, int64_t block_count, int unit,
                    v1::Timing* timing);

// The per-call median (type 7) of blocks [first_block, first_block + block_count) of
// `blocks`, clamped to them; 0 when empty. What AddTimingRound records, while timing runs.
double RoundMedian(const std::vector<v1::TimingBlock>& blocks, int64_t first_block, int64_t block_count);

}  // namespace torchscan
