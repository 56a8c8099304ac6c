// The instruction-count mode of the fresh child (torchscan_rss_child --instructions ...), run
// under valgrind's callgrind by passes/instruction_count.h. LibTorch.
//
//   torchscan_rss_child --instructions SPEC_FILE CALLS INTRA INTER WARMUP REPEATS
//
// Applies the thread counts first, builds the serialized WorkloadSpec, completes WARMUP calls
// uncounted, then REPEATS times: CALLS calls of an empty function through the same loop, dumped
// as "empty <r>", and CALLS calls of the workload, dumped as "calls <r>" (callgrind collects
// only between its toggles around each loop; each dump holds what was collected since the
// previous one). Prints one line (instruction_protocol.h) and exits 0; 2 when not running
// under callgrind, the spec cannot be read or built, or a call fails (reason on stderr);
// 64 usage.
#pragma once

#include <string>
#include <vector>

namespace torchscan::passes {

// `words` are the six words after --instructions. Returns the exit status.
int RunInstructionChild(const std::vector<std::string>& words);

}  // namespace torchscan::passes
