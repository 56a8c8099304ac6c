// Google Benchmark-compatible JSON of the raw timing blocks, so google/benchmark's
// tools/compare.py (and other tools that read --benchmark_format=json) can read our runs.
//
// Field choices:
//  - "context": date = created_at; host_name; executable = "torchscan"; num_cpus =
//    logical_cores (0 when unknown); mhz_per_cpu = 0 (not recorded); cpu_scaling_enabled =
//    true unless the governor is "performance" or unknown; caches = []; load_avg = the
//    recorded 1/5/15-minute loads; library_build_type = "release" for an optimized build,
//    else "debug"; plus torchscan_schema_version and torchscan_device. A comparison's
//    context is its before run's.
//  - "benchmarks": one entry per timing block, run_type "iteration": name = run_name =
//    ExportNames() of report/evidence_view.h; family_index = the run's position (0 before,
//    1 after); per_family_instance_index = 0; repetitions = the run's block count;
//    repetition_index = the 0-based block position; threads = 1 (one measuring thread; the
//    intra-op threads are in the context as torchscan_intra_op_threads); iterations = the
//    block's calls; real_time = the block's per-call time (duration / calls) in ns;
//    cpu_time = real_time (TorchScan measures wall time only); time_unit = "ns" always, so
//    files compare without unit conversion. Blocks with calls <= 0 or a non-finite duration
//    (never in a validated report) are left out, since JSON has no NaN.
//
// Every block of a run shares its name, so compare.py treats blocks as repetitions and its
// U test runs over them. Comparing two runs:
//   compare.py filters comparison.json baseline candidate        (one exported comparison)
//   compare.py benchmarksfiltered before.json baseline after.json candidate   (two reports)
//
// A comparison whose numbers are withheld (WithheldBecause of report/evidence_view.h: the
// output check failed or the runs are not comparable) is refused: compare.py would print the
// deltas and U test TorchScan withholds. Accepts returns FailedPrecondition naming why (the
// check's message, each mismatched field) and saying that the runs can be exported one by
// one as plain reports; Render of such a comparison lists no benchmarks (the context only).
// Reports and comparisons whose numbers stand are always accepted.
#pragma once

#include "report/renderer.h"

namespace torchscan::report {

class GbenchExporter : public Renderer {
 public:
  std::string Render(const Evidence& evidence) const override;
  absl::Status Accepts(const Evidence& evidence) const override;
  std::string_view format() const override { return "gbench"; }
  std::string_view file_extension() const override { return "json"; }
};

}  // namespace torchscan::report
