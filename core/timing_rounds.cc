#include "core/timing_rounds.h"

#include <algorithm>

#include "core/latency_runner.h"

namespace torchscan {

void AddTimingRound(int index, const std::string& position, int64_t first_block, int64_t block_count, int unit,
                    v1::Timing* timing) {
  const int64_t total = timing->blocks_size();
  const int64_t first = std::clamp<int64_t>(first_block, 0, total);
  const int64_t count = std::clamp<int64_t>(block_count, 0, total - first);
  google::protobuf::RepeatedPtrField<v1::TimingBlock> blocks(timing->blocks().begin() + first,
                                                             timing->blocks().begin() + first + count);
  v1::TimingRound* r = timing->add_rounds();
  r->set_round(index);
  r->set_position(position);
  r->set_first_block(first);
  r->set_block_count(count);
  r->set_median_s(SummarizeBlocks(blocks).median_s());
  r->set_unit(unit);
}

double RoundMedian(const std::vector<v1::TimingBlock>& blocks, int64_t first_block, int64_t block_count) {
  const int64_t total = static_cast<int64_t>(blocks.size());
  const int64_t first = std::clamp<int64_t>(first_block, 0, total);
  const int64_t count = std::clamp<int64_t>(block_count, 0, total - first);
  google::protobuf::RepeatedPtrField<v1::TimingBlock> range(blocks.begin() + first, blocks.begin() + first + count);
  return SummarizeBlocks(range).median_s();
}

}  // namespace torchscan
