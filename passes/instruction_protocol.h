// What the instruction-count child (instruction_child.h) prints and its parent
// (instruction_count.h) reads: one line on stdout
//   torchscan_instruction_child calls=<n> repeats=<n> warmup=<n> intra_op_threads=<n> inter_op_threads=<n>
// and the callgrind dump labels between them. Pure functions: no LibTorch, no processes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace torchscan::passes {

// The child's mode flag (torchscan_rss_child --instructions SPEC CALLS INTRA INTER WARMUP REPEATS).
inline constexpr char kInstructionChildFlag[] = "--instructions";

struct InstructionChildResult {
  int64_t calls = 0;    // calls counted in each loop
  int64_t repeats = 0;  // loops of the workload (each with its empty loop before it)
  int64_t warmup = 0;   // uncounted calls before the first loop
  int64_t intra_op_threads = 0;
  int64_t inter_op_threads = 0;
};

// The dump labels, e.g. "empty 1", "calls 1" (repeat 1-based).
std::string EmptyLoopLabel(int repeat);
std::string CallsLoopLabel(int repeat);

std::string FormatInstructionChildLine(const InstructionChildResult& result);

// The last line of `stdout_text` that starts with "torchscan_instruction_child " and holds all
// five fields as non-negative integers; nullopt otherwise.
std::optional<InstructionChildResult> ParseInstructionChildOutput(absl::string_view stdout_text);

}  // namespace torchscan::passes
