#include "passes/instruction_child.h"

#include <valgrind/callgrind.h>

#include <ATen/Parallel.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>

#include "absl/strings/numbers.h"
#include "passes/instruction_protocol.h"
#include "proto/workload.pb.h"
#include "workloads/thread_settings.h"
#include "workloads/torch_status.h"
#include "workloads/workload.h"

// Under valgrind, libhwy (loaded by LibTorch through OpenCV and libjxl) times itself with
// RDTSCP in a load-time initializer; valgrind 3.19 rejects RDTSCP on a CPU that does not list
// it (virtual machines often hide it) and kills the process with SIGILL. Valgrind replaces
// this function with the one below (its redirection covers calls inside libhwy itself); a
// timer resolution of one tick only sizes libhwy's own benchmarks, which TorchScan never runs.
// Outside valgrind the symbol is an ordinary unused function.
extern "C" __attribute__((used, retain, visibility("default"))) uint64_t I_REPLACE_SONAME_FNNAME_ZU(
    libhwyZdsoZa, _ZN3hwy8platform15TimerResolutionEv)() {
  return 1;
}

namespace torchscan::passes {
namespace {

int Fail(const std::string& message) {
  std::cerr << "torchscan_rss_child --instructions: " << message << "\n";
  return 2;
}

// Calls `f` `calls` times with callgrind collecting, then dumps what was collected as `label`.
// The loop is the same for the empty function and the workload, so the empty loop's count is
// the loop's own cost.
void CountLoop(const std::function<void()>& f, int64_t calls, const std::string& label) {
  CALLGRIND_TOGGLE_COLLECT;
  for (int64_t i = 0; i < calls; ++i) f();
  CALLGRIND_TOGGLE_COLLECT;
  CALLGRIND_DUMP_STATS_AT(label.c_str());
}

}  // namespace

int RunInstructionChild(const std::vector<std::string>& words) {
  int64_t calls = 0, intra = 0, inter = 0, warmup = 0, repeats = 0;
  if (words.size() != 6 || !absl::SimpleAtoi(words[1], &calls) || calls < 1 || !absl::SimpleAtoi(words[2], &intra) ||
      !absl::SimpleAtoi(words[3], &inter) || !absl::SimpleAtoi(words[4], &warmup) || warmup < 0 ||
      !absl::SimpleAtoi(words[5], &repeats) || repeats < 1) {
    std::cerr << "usage: torchscan_rss_child --instructions SPEC_FILE CALLS INTRA_OP_THREADS INTER_OP_THREADS "
                 "WARMUP REPEATS  (under valgrind --tool=callgrind --collect-atstart=no; CALLS >= 1, WARMUP >= 0, "
                 "REPEATS >= 1)\n";
    return 64;
  }
  if (!RUNNING_ON_VALGRIND) return Fail("not running under valgrind --tool=callgrind: nothing would be counted");
  if (absl::Status s = workloads::ApplyThreadSettings(static_cast<int>(intra), static_cast<int>(inter)); !s.ok())
    return Fail(s.ToString());
  v1::WorkloadSpec spec;
  {
    std::ifstream in(words[0], std::ios::binary);
    if (!in) return Fail("cannot read the spec file '" + words[0] + "'");
    if (!spec.ParseFromIstream(&in)) return Fail("'" + words[0] + "' is not a serialized WorkloadSpec");
  }
  absl::StatusOr<workloads::Workload> workload = workloads::BuildWorkload(spec);
  if (!workload.ok()) return Fail(workload.status().ToString());
  const std::function<void()> empty = [] {};
  const std::function<void()> call = [&] { workload->call(); };
  const absl::Status ran = workloads::RunTorch("call", [&] {
    // Instrumentation from here on (the parent starts valgrind with --instr-atstart=no: start-up
    // and construction run uninstrumented, several times faster); the warm-up runs instrumented,
    // so the counted loops find every block already translated.
    CALLGRIND_START_INSTRUMENTATION;
    for (int64_t i = 0; i < warmup; ++i) call();
    workload->device->Synchronize();
    for (int r = 1; r <= repeats; ++r) {
      CountLoop(empty, calls, EmptyLoopLabel(r));
      CountLoop(call, calls, CallsLoopLabel(r));
      workload->device->Synchronize();
    }
  });
  if (!ran.ok()) return Fail(ran.ToString());
  std::cout << FormatInstructionChildLine(
                   {calls, repeats, warmup, at::get_num_threads(), static_cast<int64_t>(at::get_num_interop_threads())})
            << std::endl;
  return 0;
}

}  // namespace torchscan::passes
