// The instruction-count pass (passes/instruction_count.h), measured (issue 27):
//   - repeatability: the same workload counted in two separate children; the relative
//     difference of instructions per call (target <= 0.1 %), and the spread between the two
//     counted loops inside each child;
//   - the counts of the guide's linear example and of ResNet-18;
//   - the delta of a +2 % change: a 50-layer tanh(Linear(256, 256)) chain against the same
//     chain plus one layer (benchmarks/tanh_chain_module.h), counted --pairs times: found
//     each time, and how far from the 51/50 work ratio;
//   - the pass's cost: wall seconds per count (valgrind's start with LibTorch included).
// One thread per workload; the counts do not depend on load, the wall times do.
//
//   bazel build //benchmarks:instruction_benchmark //passes:torchscan_rss_child
//   bazel-bin/benchmarks/instruction_benchmark bazel-bin/passes/torchscan_rss_child [--pairs N] [--quick]
//
// --quick: linear only, one pair of counts of a 4-layer chain against 5 (//tests:readme_benchmarks_test
// runs it; the 50-layer chain takes minutes a count under valgrind).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "benchmarks/benchmark_args.h"
#include "benchmarks/tanh_chain_module.h"
#include "passes/instruction_count.h"
#include "proto/spec_limits.h"
#include "proto/workload.pb.h"

namespace {

using torchscan::passes::CountInstructions;
using torchscan::passes::InstructionOptions;
using torchscan::v1::InstructionCounts;
using torchscan::v1::WorkloadSpec;

WorkloadSpec Builtin(torchscan::v1::ModelSpec::Builtin model) {
  WorkloadSpec spec;
  spec.mutable_model()->set_builtin(model);
  return spec;
}

WorkloadSpec Chain(const std::string& bytes, const char* method) {
  WorkloadSpec spec;
  torchscan::v1::TorchScriptSpec* ts = spec.mutable_model()->mutable_torchscript();
  ts->set_module_bytes(bytes);
  ts->set_method(method);
  torchscan::v1::GeneratedTensor* x = spec.add_inputs()->mutable_generated();
  x->add_shape(64);
  x->add_shape(torchscan::benchmarks::kChainWidth);
  return spec;
}

// One count, or exits with its reason.
InstructionCounts Count(const WorkloadSpec& spec, const std::string& child, const char* what) {
  InstructionOptions o;
  o.intra_op_threads = 1;
  o.inter_op_threads = 1;
  InstructionCounts c = CountInstructions(spec, child, o);
  if (!c.complete()) {
    std::fprintf(stderr, "%s: no count: %s\n", what, c.diagnostics().empty() ? "?" : c.diagnostics(0).c_str());
    std::exit(1);
  }
  return c;
}

void Repeatability(const char* name, const WorkloadSpec& spec, const std::string& child) {
  const InstructionCounts a = Count(spec, child, name), b = Count(spec, child, name);
  const double between = std::fabs(b.instructions() - a.instructions()) / a.instructions();
  std::printf("%-9s %16.0f %16.0f %12.4f%% %12.4f%% %10.1f %10.1f  %s\n", name, a.instructions(), b.instructions(),
              100 * between, 100 * std::max(a.spread(), b.spread()), a.wall_s(), b.wall_s(),
              between <= torchscan::kInstructionSpreadLimit ? "met" : "MISSED");
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = torchscan::benchmarks::TakeQuickFlag(&argc, argv);
  int pairs = 3;
  std::vector<std::string> rest;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--pairs") == 0 && i + 1 < argc) {
      const std::optional<int> n = torchscan::benchmarks::PositiveInt(argv[++i]);
      if (!n) return 2;
      pairs = *n;
    } else {
      rest.emplace_back(argv[i]);
    }
  }
  if (rest.size() != 1) {
    std::fprintf(stderr, "usage: %s RSS_CHILD [--pairs N, default 3] [--quick]\n", argv[0]);
    return 2;
  }
  const std::string child = rest[0];
  if (quick) pairs = 1;

  std::printf("Repeatability: each workload counted in two separate children (%d calls per loop, 1 thread)\n",
              torchscan::kDefaultInstructionCalls);
  std::printf("%-9s %16s %16s %13s %13s %10s %10s  %s\n", "model", "Ir/call (1)", "Ir/call (2)", "between", "in-child",
              "wall 1 s", "wall 2 s", "<= 0.1 %");
  Repeatability("linear", Builtin(torchscan::v1::ModelSpec::linear), child);
  if (!quick) Repeatability("resnet18", Builtin(torchscan::v1::ModelSpec::resnet18), child);

  const int layers = quick ? 4 : 50;
  const std::string chain = torchscan::benchmarks::TanhChainModuleBytes(layers);
  std::printf("\nA +%.0f %% change: %d tanh(Linear(256)) layers vs %d on 64x256\n", 100.0 / layers, layers, layers + 1);
  std::printf("%-5s %16s %16s %10s %10s %10s  %s\n", "pair", "Ir/call (N)", "Ir/call (N+1)", "change", "wall N s",
              "wall N+1 s", "found");
  int found = 0;
  for (int p = 1; p <= pairs; ++p) {
    const InstructionCounts a = Count(Chain(chain, torchscan::benchmarks::kChainMethod), child, "chain 50");
    const InstructionCounts b = Count(Chain(chain, torchscan::benchmarks::kChainPlusOneMethod), child, "chain 51");
    const double change = b.instructions() / a.instructions() - 1;
    const bool ok = change > std::max(a.spread(), b.spread()) && change > 0.01;
    found += ok;
    std::printf("%-5d %16.0f %16.0f %9.3f%% %10.1f %10.1f  %s\n", p, a.instructions(), b.instructions(), 100 * change,
                a.wall_s(), b.wall_s(), ok ? "yes" : "NO");
  }
  std::printf("\n+%.0f %% found by counts: %d / %d\n", 100.0 / layers, found, pairs);
  return found == pairs ? 0 : 1;
}
