// CountInstructions: instructions per call of a workload, counted by valgrind's callgrind in
// a fresh child process (torchscan_rss_child --instructions, instruction_child.h), started
// and supervised with process/. No LibTorch here.
//
// The child builds the workload from a serialized copy of `spec` with the given threads,
// completes the warm-up calls uncounted, then counts `repeats` loops of `calls` calls, each
// after a loop of as many empty calls (subtracted). Collection is on only inside the loops
// (--collect-atstart=no and the child's toggles), so start-up and construction count nothing.
// Valgrind runs every thread of the child on one core, one at a time: counts are deterministic
// for a deterministic call, whatever else the machine does, but say nothing about time.
#pragma once

#include <string>

#include "process/control.h"
#include "proto/report.pb.h"
#include "proto/spec_limits.h"
#include "proto/workload.pb.h"

namespace torchscan::passes {

struct InstructionOptions {
  int calls = kDefaultInstructionCalls;  // per counted loop, >= 1
  int warmup_calls = kInstructionWarmupCalls;
  int repeats = kInstructionRepeats;  // >= 1; two or more show whether the count repeats
  int intra_op_threads = 0;           // as the job's (0 keeps LibTorch's default)
  int inter_op_threads = 0;
  double timeout_s = kInstructionTimeoutS;  // the child (and valgrind) killed past it
  // valgrind: a path, or a name looked up on PATH. Missing: the result says how to install it.
  std::string valgrind = "valgrind";
  bool cache_simulation = true;  // --cache-sim=yes: L1/LL misses and the cycle estimate
  // When set, Kill() on it from another thread ends the child at once (the result then says
  // why, without figures). nullptr: never. Must outlive the call.
  process::Control* control = nullptr;
};

// Returns the counts with complete = true and the figures (instruction_summary.h), or
// complete = false with the reason in diagnostics: valgrind missing, the child missing, killed,
// timed out, failed (its stderr's tail and valgrind's log tail, e.g. an instruction valgrind
// cannot run), no result line, or unreadable dumps. Temporary files (a folder under $TMPDIR
// or /tmp) are removed in every case. Never throws; blocks the calling thread. Call it from
// the thread that runs LibTorch (fork handlers: process/spawn.h).
v1::InstructionCounts CountInstructions(const v1::WorkloadSpec& spec, const std::string& child_path,
                                        const InstructionOptions& options = InstructionOptions());

// The sentence every report with counts carries: what instruction counts cannot say.
inline constexpr char kInstructionLimits[] =
    "Instruction counts measure CPU work on the host: they say nothing about GPU kernels, memory bandwidth, "
    "parallel speed-up (valgrind runs threads one at a time) or frequency; a change in count need not be a "
    "change in time.";

}  // namespace torchscan::passes
