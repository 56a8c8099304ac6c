// torchscan_rss_child SPEC_FILE CALLS INTRA_OP_THREADS INTER_OP_THREADS
//
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

#include <ATen/Parallel.h>

#include "absl/strings/numbers.h"
#include "core/torch_measure.h"
#include "passes/rss_protocol.h"
#include "workloads/torch_status.h"
#include "workloads/workload.h"
#include "proto/workload.pb.h"

namespace {

int Fail(const std::string& message) {
  std::cerr << "torchscan_rss_child: " << message << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 0, intra_op = 0, inter_op = 0;
  if (argc != 5 || !absl::SimpleAtoi(argv[2], &calls) || calls < 1 || !absl::SimpleAtoi(argv[3], &intra_op) ||
      !absl::SimpleAtoi(argv[4], &inter_op)) {
    std::cerr << "usage: torchscan_rss_child SPEC_FILE CALLS INTRA_OP_THREADS INTER_OP_THREADS  (a serialized "
                 "torchscan.v1.WorkloadSpec; CALLS >= 1; threads >= 0, 0 keeps LibTorch's default)\n";
    return 64;
  }
  // Before anything else: LibTorch's pools take their size when they first start.
  if (absl::Status s = torchscan::ApplyThreadSettings(intra_op, inter_op); !s.ok()) return Fail(s.ToString());
  torchscan::v1::WorkloadSpec spec;
  {
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) return Fail(std::string("cannot read the spec file '") + argv[1] + "'");
    if (!spec.ParseFromIstream(&in)) return Fail(std::string("'") + argv[1] + "' is not a serialized WorkloadSpec");
  }
  torchscan::workloads::WorkloadOptions options;
  options.trial_call = false;  // the scope counts every completed call: no hidden extra one
  absl::StatusOr<torchscan::workloads::Workload> workload = torchscan::workloads::BuildWorkload(spec, options);
  if (!workload.ok()) return Fail(workload.status().ToString());
  const absl::Status ran = torchscan::workloads::RunTorch("call", [&] {
    for (int i = 0; i < calls; ++i) workload->call();
    workload->synchronize();
  });
  if (!ran.ok()) return Fail(ran.ToString());

  std::ifstream status_file("/proc/self/status");
  std::stringstream status;
  status << status_file.rdbuf();
  const std::optional<int64_t> vm_hwm = torchscan::workloads::ParseVmHwmBytes(status.str());
  if (!vm_hwm) return Fail("no VmHWM line in /proc/self/status (peak RSS needs Linux)");
  std::cout << torchscan::workloads::FormatRssChildLine(
                   {*vm_hwm, calls, at::get_num_threads(), at::get_num_interop_threads()})
            << std::endl;
  return 0;
}
