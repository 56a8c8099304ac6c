// torchscan_rss_child SPEC_FILE CALLS INTRA_OP_THREADS INTER_OP_THREADS
// torchscan_rss_child --wait   (the same four words then come as one line on stdin)
// torchscan_rss_child --instructions SPEC_FILE CALLS INTRA INTER WARMUP REPEATS
//   (the instruction-count pass's child, under callgrind: passes/instruction_child.h)
//
// --wait: a child started before its trial is known (a warm spare worker's, passes/peak_rss.h
// RssTrial::LaunchWaiting): it loads, then blocks on stdin for its line, and runs the trial
// as if the words had been its arguments; end of file before a line exits 0 with no output
// (its worker ended or needed no RSS). Its VmHWM covers the same start-up as an argument-
// started child's: the metric's scope stays true.
// The fresh process of one measure_peak_rss trial: applies the thread counts first (0 keeps
// LibTorch's default), reads a binary-serialized WorkloadSpec, builds the workload without a
// trial call (start-up + model/input construction), completes exactly CALLS calls (no
// profiling, no other pass), then prints its peak resident set from /proc/self/status and
// the thread counts it ran with (rss_protocol.h):
//   torchscan_rss_child vm_hwm_bytes=<bytes> calls=<CALLS> intra_op_threads=<n> inter_op_threads=<n>
// Exit status: 0 printed; 2 the threads could not be set, the spec could not be read or
// built, a call failed, or VmHWM could not be read (the reason on stderr); 64 usage.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <ATen/Parallel.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "passes/instruction_child.h"
#include "passes/instruction_protocol.h"
#include "passes/rss_protocol.h"
#include "proto/workload.pb.h"
#include "workloads/thread_settings.h"
#include "workloads/torch_status.h"
#include "workloads/workload.h"

namespace {

int Fail(const std::string& message) {
  std::cerr << "torchscan_rss_child: " << message << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> words(argv + 1, argv + argc);
  if (!words.empty() && words[0] == torchscan::passes::kInstructionChildFlag)
    return torchscan::passes::RunInstructionChild({words.begin() + 1, words.end()});
  if (words.size() == 1 && words[0] == torchscan::passes::kRssChildWaitFlag) {
    std::string line;
    if (!std::getline(std::cin, line)) return 0;  // no trial came
    words = absl::StrSplit(line, ' ', absl::SkipEmpty());
  }
  int calls = 0, intra_op = 0, inter_op = 0;
  if (words.size() != 4 || !absl::SimpleAtoi(words[1], &calls) || calls < 1 || !absl::SimpleAtoi(words[2], &intra_op) ||
      !absl::SimpleAtoi(words[3], &inter_op)) {
    std::cerr << "usage: torchscan_rss_child SPEC_FILE CALLS INTRA_OP_THREADS INTER_OP_THREADS  (a serialized "
                 "torchscan.v1.WorkloadSpec; CALLS >= 1; threads >= 0, 0 keeps LibTorch's default), or --wait and "
                 "those four words as one line on stdin\n";
    return 64;
  }
  const std::string& spec_file = words[0];
  // Before anything else: LibTorch's pools take their size when they first start.
  if (absl::Status s = torchscan::workloads::ApplyThreadSettings(intra_op, inter_op); !s.ok())
    return Fail(s.ToString());
  torchscan::v1::WorkloadSpec spec;
  {
    std::ifstream in(spec_file, std::ios::binary);
    if (!in) return Fail("cannot read the spec file '" + spec_file + "'");
    if (!spec.ParseFromIstream(&in)) return Fail("'" + spec_file + "' is not a serialized WorkloadSpec");
  }
  torchscan::workloads::WorkloadOptions options;
  options.trial_call = false;  // the scope counts every completed call: no hidden extra one
  absl::StatusOr<torchscan::workloads::Workload> workload = torchscan::workloads::BuildWorkload(spec, options);
  if (!workload.ok()) return Fail(workload.status().ToString());
  const absl::Status ran = torchscan::workloads::RunTorch("call", [&] {
    for (int i = 0; i < calls; ++i) workload->call();
    workload->device->Synchronize();
  });
  if (!ran.ok()) return Fail(ran.ToString());

  std::ifstream status_file("/proc/self/status");
  std::stringstream status;
  status << status_file.rdbuf();
  const std::optional<int64_t> vm_hwm = torchscan::passes::ParseVmHwmBytes(status.str());
  if (!vm_hwm) return Fail("no VmHWM line in /proc/self/status (peak RSS needs Linux)");
  std::cout << torchscan::passes::FormatRssChildLine(
                   {*vm_hwm, calls, at::get_num_threads(), static_cast<int64_t>(at::get_num_interop_threads())})
            << std::endl;
  // Ends here, without LibTorch's teardown (static destructors, thread pools, freed
  // allocations): its figure is printed and flushed, and the job waits for this process to
  // exit before its first timed block, so the teardown would only delay that (as in
  // torchscan-worker, which ends the same way).
  std::_Exit(0);
}
