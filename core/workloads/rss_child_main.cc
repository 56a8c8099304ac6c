// torchscan_rss_child SPEC_FILE CALLS
//
// The fresh process of one measure_peak_rss trial: reads a binary-serialized WorkloadSpec,
// builds the workload (start-up + model/input construction), completes CALLS calls (no
// profiling, no other pass), then prints its peak resident set from /proc/self/status as
//   torchscan_rss_child vm_hwm_bytes=<bytes> calls=<CALLS>
// Exit status: 0 printed; 2 the spec could not be read or built, a call failed, or VmHWM
// could not be read (the reason on stderr); 64 usage.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "core/workloads/rss_protocol.h"
#include "core/workloads/torch_status.h"
#include "core/workloads/workload.h"
#include "proto/workload.pb.h"

namespace {

int Fail(const std::string& message) {
  std::cerr << "torchscan_rss_child: " << message << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 0;
  if (argc != 3 || !absl::SimpleAtoi(argv[2], &calls) || calls < 1) {
    std::cerr << "usage: torchscan_rss_child SPEC_FILE CALLS  (a serialized torchscan.v1.WorkloadSpec; CALLS >= 1)\n";
    return 64;
  }
  torchscan::v1::WorkloadSpec spec;
  {
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) return Fail(std::string("cannot read the spec file '") + argv[1] + "'");
    if (!spec.ParseFromIstream(&in)) return Fail(std::string("'") + argv[1] + "' is not a serialized WorkloadSpec");
  }
  absl::StatusOr<torchscan::workloads::Workload> workload = torchscan::workloads::BuildWorkload(spec);
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
  std::cout << torchscan::workloads::FormatRssChildLine({*vm_hwm, calls}) << std::endl;
  return 0;
}
