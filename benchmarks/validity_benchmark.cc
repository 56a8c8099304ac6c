// How often TorchScan's verdicts are wrong on this machine (issue 14, item 5), through a real
// torchscand (a child process, benchmarks/benchmark_daemon.h). A benchmark that prints
// figures, not a test.
//
//   bazel build //benchmarks:validity_benchmark //daemon:torchscand //worker:torchscan-worker &&
//   bazel-bin/benchmarks/validity_benchmark bazel-bin/daemon/torchscand [--pairs 40]
//     [--sequential-pairs 10] [--file-pairs 40] [--file-layers 50] [--small-pairs 0] [--load N]
//     [--min-run-time S] [--rounds R] [--threads T] [--max-time S] [--smallest-change X] [--quick]
//     [--packages [--python PY]]
//
// Workload (benchmarks/tanh_chain_module.h): a chain of 20 tanh(Linear(256,256)) layers on a
// 64x256 input, made at start; its second method adds one layer (+5 % work). Compare jobs, one
// at a time, in an interleaved order (validity_tally.h), each with the output check skipped
// (the slowdown's outputs differ) and no diagnostic passes (timing only):
//   A/A            forward vs forward, at --rounds (0: the daemon's default)
//   +5 %           forward vs forward_plus_one, at --rounds
//   A/A sequential forward vs forward with rounds 1, the wall-time reference
// and, as users compare two files (issue 25), a chain of --file-layers (50) layers on 64x256:
//   A/A copies     two byte-identical files under different names, at --rounds
//   +1 layer files the 50-layer file against a 51-layer one saved separately (+2 %; 100 against
//                  101 layers: +1 %), at --rounds
// (with --packages the two files are AOTInductor packages of those chains, compiled first by
// benchmarks/chain_module.py: compiled code under the same decision, issue 42)
// and, with --small-pairs, a model of about 0.3 ms (20 layers on 4x256, issue 40):
//   small A/A copies  two byte-identical files
//   small +5 %        forward vs forward_plus_one in one file
// --load N runs N bursty CPU hogs beside the daemon for the whole run (benchmarks/cpu_hogs.h:
// busy 5-50 ms, idle 5-50 ms, at random), as other users' work on a shared machine.
// Prints a table per kind, then one figure per line, for the guide's label (latency_change)
// and the paired claim (evidence.paired.claim): A/A false verdicts (faster or slower),
// detections of the +5 % (slower), wrong direction on the +5 % (faster), the wall time per
// comparison (Submit to fetched result, median and p90), and default / sequential wall (the
// medians of A/A and A/A sequential). The rounds shown are those each comparison records.
// --ratios-csv FILE: one line per job (kind, label, claim, per-round ratios), to study the
// paired statistics offline on the same jobs.
// --quick: 1 pair, 1 sequential pair and min_run_time 0.01 s unless given, to check that it
// runs (//tests:readme_benchmarks_test). Exit 0 when every job succeeded, 1 when one failed,
// 2 for bad flags. Gives up after 4 hours.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "benchmarks/benchmark_daemon.h"
#include "benchmarks/cpu_hogs.h"
#include "benchmarks/tanh_chain_module.h"
#include "benchmarks/validity_tally.h"
#include "core/build_pair_decision.h"
#include "core/statistics.h"
#include "proto/service.pb.h"
#include "proto/spec_limits.h"

namespace {

namespace v1 = torchscan::v1;
using namespace torchscan::benchmarks;

constexpr int kLayers = 20;  // +1 layer = +5 % work
constexpr int kBatch = 64;
constexpr int kSmallBatch = 4;  // the 20 layers on 4x256: about 0.3 ms a call

struct Flags {
  std::string daemon_path = "bazel-bin/daemon/torchscand";
  int pairs = 40;              // A/A jobs, and as many +5 % jobs
  int sequential_pairs = 10;   // rounds-1 A/A jobs
  int file_pairs = 40;         // A/A copies jobs, and as many +1 layer files jobs
  int file_layers = 50;        // layers of the file pairs' chain (+1 layer: +2 % at 50)
  int small_pairs = 0;         // small A/A copies jobs, and as many small +5 % jobs
  int load = 0;                // bursty CPU hogs beside the daemon
  double min_run_time_s = 0;   // 0: the daemon's default
  int rounds = 0;              // 0: the daemon's default
  int threads = 0;             // intra-op threads; 0: the daemon's default
  double max_time_s = 0;       // compare time cap; 0: the daemon's default (20 s)
  double smallest_change = 0;  // compare decision margin; 0: the daemon's default (0.01)
  bool quick = false;
  bool packages = false;  // the file pairs as AOTInductor packages (chain_module.py --package)
  std::string python = "/opt/torchscan/venv/bin/python";
  std::string ratios_csv;  // "": none; else one line per job: kind, label, claim, per-round ratios
  std::string pairs_csv;   // "": none; else one line per build pair: kind, job, pair, ratio, others' share
};

// Parses and checks the flags; exits 0 for --help, 2 naming the flag for a bad value.
Flags ParseFlags(int argc, char** argv) {
  Flags f;
  CLI::App app(
      "validity_benchmark: A/A and +5 % compare jobs through a real torchscand; prints how often the "
      "label and the paired claim are wrong, and the wall time per comparison");
  app.add_option("torchscand", f.daemon_path, "torchscand to start (default bazel-bin/daemon/torchscand)");
  CLI::Option* pairs = app.add_option("--pairs", f.pairs, "A/A jobs, and as many +5 % jobs (default 40; 0: none)");
  CLI::Option* sequential = app.add_option("--sequential-pairs", f.sequential_pairs,
                                           "rounds-1 A/A jobs for the wall-time ratio (default 10)");
  CLI::Option* file_pairs =
      app.add_option("--file-pairs", f.file_pairs,
                     "A/A jobs between two byte-identical files, and as many +1 layer jobs (default 40)");
  app.add_option("--file-layers", f.file_layers, "layers of the file pairs' chain (default 50: +1 layer is +2 %)");
  app.add_option("--small-pairs", f.small_pairs,
                 "A/A jobs between two byte-identical files of a ~0.3 ms model, and as many +5 % jobs (default 0)");
  app.add_option("--load", f.load, "bursty CPU hogs beside the daemon (busy 5-50 ms, idle 5-50 ms; default 0)");
  CLI::Option* min_run_time =
      app.add_option("--min-run-time", f.min_run_time_s, "min_run_time_s of every job (default 0: the daemon's)");
  app.add_option("--rounds", f.rounds, "rounds of the A/A and +5 % jobs (default 0: the daemon's default)");
  app.add_option("--threads", f.threads, "intra-op threads of every job (default 0: the daemon's default)");
  app.add_option("--max-time", f.max_time_s, "max_time_s of every compare (default 0: the daemon's, 20 s)");
  app.add_option("--smallest-change", f.smallest_change,
                 "smallest_change of every compare (default 0: the daemon's, 0.01)");
  app.add_option("--ratios-csv", f.ratios_csv,
                 "write each job's kind, label, claim and per-round ratios to this CSV file (for offline analysis)");
  app.add_option("--pairs-csv", f.pairs_csv,
                 "write each build pair's kind, job, pair, ratio and other processes' share of the CPUs to this CSV");
  app.add_flag("--packages", f.packages,
               "the file pairs as AOTInductor packages (.pt2) of the chain, compiled first by benchmarks/"
               "chain_module.py with --python (issue 42)");
  app.add_option("--python", f.python, "the Python with torch that compiles --packages (default the project's)");
  app.add_flag("--quick", f.quick, "1 pair, 1 sequential pair, min_run_time 0.01 s unless given: a smoke run");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e) == 0 ? 0 : 2);
  }
  if (f.quick) {
    if (pairs->count() == 0) f.pairs = 1;
    if (sequential->count() == 0) f.sequential_pairs = 1;
    if (file_pairs->count() == 0) f.file_pairs = 1;
    if (min_run_time->count() == 0) f.min_run_time_s = 0.01;
  }
  auto refuse = [](const std::string& why) {
    std::fprintf(stderr, "validity_benchmark: %s\n", why.c_str());
    std::exit(2);
  };
  if (f.pairs < 0) refuse("--pairs must be 0 or more");
  if (f.file_layers < 1 || f.file_layers > 1000) refuse("--file-layers must be 1 to 1000");
  if (f.small_pairs < 0) refuse("--small-pairs must be 0 or more");
  if (f.load < 0 || f.load > 16) refuse("--load must be 0 to 16 hogs");
  if (f.sequential_pairs < 0) refuse("--sequential-pairs must be 0 or more");
  if (f.file_pairs < 0) refuse("--file-pairs must be 0 or more");
  if (!(f.min_run_time_s >= 0) || f.min_run_time_s > 86400) refuse("--min-run-time must be 0 (default) to 86400 s");
  if (f.rounds < 0 || f.rounds > torchscan::kMaxRounds)
    refuse("--rounds must be 0 (the daemon's default) to " + std::to_string(torchscan::kMaxRounds));
  if (f.threads < 0) refuse("--threads must be 0 (the daemon's default) or more");
  if (!(f.max_time_s >= 0) || f.max_time_s > 3600) refuse("--max-time must be 0 (the daemon's default) to 3600 s");
  if (!(f.smallest_change >= 0) || f.smallest_change > 0.5)
    refuse("--smallest-change must be 0 (the daemon's default) to 0.5");
  return f;
}

// The modules the jobs upload: the same-file chain (the small model's too), and the two files
// of the file pairs.
struct Modules {
  explicit Modules(const Flags& f)
      : file(f.packages ? Package(f, f.file_layers) : TanhChainModuleBytes(f.file_layers)),
        file_plus_one(f.packages ? Package(f, f.file_layers + 1) : TanhChainModuleBytes(f.file_layers + 1)),
        packages(f.packages) {}
  std::string chain = TanhChainModuleBytes(kLayers);
  std::string file, file_plus_one;
  bool packages = false;

  // The chain of `layers` compiled into a package by benchmarks/chain_module.py (the working
  // folder is the repository's, as for bazel-bin/ paths); exits 2 when it cannot be made.
  static std::string Package(const Flags& f, int layers) {
    const std::string folder = std::filesystem::temp_directory_path() / "validity_benchmark_packages";
    std::filesystem::create_directories(folder);
    const std::string command = f.python + " benchmarks/chain_module.py --package " + folder + " " +
                                std::to_string(layers) + " > /dev/null 2>&1";
    std::fprintf(stderr, "compiling the %d-layer chain into a package (%s)\n", layers, command.c_str());
    std::string bytes;
    if (std::system(command.c_str()) == 0) {
      std::ifstream in(folder + "/chain" + std::to_string(layers) + ".pt2", std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (bytes.empty()) {
      std::fprintf(stderr, "validity_benchmark: --packages: %s failed\n", command.c_str());
      std::exit(2);
    }
    return bytes;
  }
};

v1::WorkloadSpec ChainWorkload(const std::string& module_bytes, const char* method,
                               const std::string& name = "tanh_chain.pt", int batch = kBatch) {
  v1::WorkloadSpec w;
  v1::TorchScriptSpec* script = w.mutable_model()->mutable_torchscript();
  script->set_module_bytes(module_bytes);
  script->set_method(method);
  script->set_source_name(name + " (validity_benchmark)");
  v1::GeneratedTensor* input = w.add_inputs()->mutable_generated();
  input->add_shape(batch);
  input->add_shape(kChainWidth);
  return w;
}

// A file pair's side: the TorchScript chain, or with --packages its AOTInductor package.
v1::WorkloadSpec FileWorkload(const Modules& m, const std::string& bytes, const std::string& name) {
  v1::WorkloadSpec w = ChainWorkload(bytes, kChainMethod, name);
  if (!m.packages) return w;
  w.mutable_model()->mutable_aot_inductor()->set_package_bytes(bytes);
  w.mutable_model()->mutable_aot_inductor()->set_source_name(name + "2 (validity_benchmark)");
  return w;
}

v1::JobSpec CompareSpec(PairKind kind, const Modules& m, const Flags& f) {
  v1::JobSpec spec;
  spec.set_label(std::string("validity ") + PairKindName(kind));
  v1::CompareJob* compare = spec.mutable_compare();
  if (kind == PairKind::kAaCopies || kind == PairKind::kSlowdownFiles) {
    *compare->mutable_baseline() = FileWorkload(m, m.file, "chain.pt");
    *compare->mutable_candidate() = kind == PairKind::kAaCopies ? FileWorkload(m, m.file, "chain_copy.pt")
                                                                : FileWorkload(m, m.file_plus_one, "chain_plus_one.pt");
  } else if (kind == PairKind::kSmallAaCopies || kind == PairKind::kSmallSlowdown) {
    *compare->mutable_baseline() = ChainWorkload(m.chain, kChainMethod, "small.pt", kSmallBatch);
    *compare->mutable_candidate() = kind == PairKind::kSmallAaCopies
                                        ? ChainWorkload(m.chain, kChainMethod, "small_copy.pt", kSmallBatch)
                                        : ChainWorkload(m.chain, kChainPlusOneMethod, "small.pt", kSmallBatch);
  } else {
    *compare->mutable_baseline() = ChainWorkload(m.chain, kChainMethod);
    *compare->mutable_candidate() =
        ChainWorkload(m.chain, kind == PairKind::kSlowdown ? kChainPlusOneMethod : kChainMethod);
  }
  compare->mutable_check()->set_skip(true);
  compare->set_rounds(kind == PairKind::kSequentialAa ? 1 : f.rounds);
  compare->set_max_time_s(f.max_time_s);
  compare->set_smallest_change(f.smallest_change);
  spec.mutable_options()->set_min_run_time_s(f.min_run_time_s);
  spec.mutable_options()->set_intra_op_threads(f.threads);
  spec.mutable_options()->set_skip_diagnostics(true);
  return spec;
}

// Runs one compare job to its result; failures are recorded, not fatal.
CompareOutcome RunCompare(torchscan::DaemonClient& client, PairKind kind, const v1::JobSpec& spec) {
  CompareOutcome o;
  o.kind = kind;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<v1::Job> job = client.Submit(spec);
  if (job.ok()) job = client.Watch(job->id(), nullptr);
  if (!job.ok()) GiveUp("submit or watch: " + job.status().ToString());  // the daemon itself is gone
  if (job->state() != v1::Job::succeeded) {
    o.error = v1::Job::State_Name(job->state()) + ": " + job->error();
    return o;
  }
  absl::StatusOr<v1::JobResult> result = client.FetchResult(job->id());
  o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.ok() || !result->has_comparison()) {
    o.error = "fetch: " + (result.ok() ? std::string("not a comparison") : result.status().ToString());
    return o;
  }
  const v1::Comparison& c = result->comparison();
  o.label = c.latency_change();
  o.claim = c.evidence().paired().claim();
  if (c.evidence().has_relative_change()) o.relative_change = c.evidence().relative_change();
  o.rounds = c.after().settings().timing().rounds();
  for (const v1::BenchmarkReport* run : {&c.before(), &c.after()}) {
    o.other_cpu_share = std::max(o.other_cpu_share, run->timing().load().other_cpu_share());
    for (const v1::Warning& w : run->warnings()) o.busy_machine |= w.code() == "busy_machine";
  }
  o.round_ratios.assign(c.evidence().paired().round_ratios().begin(), c.evidence().paired().round_ratios().end());
  o.call_s = c.before().timing().summary().median_s();
  o.discarded_build_pairs = c.evidence().paired().discarded_build_pairs();
  const std::string& note = c.evidence().paired().note();
  o.withheld = note.rfind("withheld", 0) == 0 || note.rfind("no claim", 0) == 0;
  const std::vector<double> ratios(c.evidence().paired().round_ratios().begin(),
                                   c.evidence().paired().round_ratios().end());
  for (const torchscan::BuildPair& pair : torchscan::BuildPairsOf(torchscan::RoundUnitsOf(c.before()), ratios,
                                                                  torchscan::RoundLoadsOf(c.before(), c.after())))
    o.pair_ratio_share.emplace_back(pair.ratio, pair.load.interval_s() > 0 ? pair.load.other_cpu_share() : NAN);
  return o;
}

std::string Rounds(const KindTally& t) {
  std::string text;
  for (int r : t.rounds) text += (text.empty() ? "" : ",") + std::to_string(r);
  return text.empty() ? "-" : text;
}

double Q(const std::vector<double>& v, double q) { return torchscan::Quantile(v, q).value_or(NAN); }

void PrintTable(const std::vector<KindTally>& tallies, const std::vector<PairKind>& kinds) {
  std::printf("\n%-16s %5s %6s %6s | %-26s | %-20s | %8s %8s %8s | %13s | %9s %6s %8s %9s\n", "kind", "jobs", "failed",
              "rounds", "label faster/slower/within", "claim faster/slower/none", "wall p50", "wall p90", "wall max",
              "median change", "call p50", "others", "withheld", "discarded");
  for (size_t i = 0; i < kinds.size(); ++i) {
    const KindTally& t = tallies[i];
    if (t.jobs == 0) continue;
    const std::string label = std::to_string(t.label_faster) + " / " + std::to_string(t.label_slower) + " / " +
                              std::to_string(t.label_within) +
                              (t.label_unavailable ? " (+" + std::to_string(t.label_unavailable) + " unavail.)" : "");
    const std::string claim =
        std::to_string(t.claim_faster) + " / " + std::to_string(t.claim_slower) + " / " + std::to_string(t.claim_none);
    std::printf("%-16s %5d %6d %6s | %-26s | %-20s | %7.2fs %7.2fs %7.2fs | %+12.2f%% | %7.3fms %5.0f%% %8d %9d\n",
                PairKindName(kinds[i]), t.jobs, t.failed, Rounds(t).c_str(), label.c_str(), claim.c_str(),
                Q(t.wall_s, 0.5), Q(t.wall_s, 0.9), Q(t.wall_s, 1), 100 * Q(t.relative_change, 0.5),
                1e3 * Q(t.call_s, 0.5), 100 * Q(t.other_cpu_share, 0.5), t.withheld, t.discarded_build_pairs);
  }
}

void PrintFigures(const KindTally& aa, const KindTally& slow, const KindTally& seq) {
  std::printf("\nlabel A/A false verdicts (faster or slower): %s\n",
              Rate(aa.label_faster + aa.label_slower, aa.succeeded()).c_str());
  std::printf("label +5 %% detections (slower): %s\n", Rate(slow.label_slower, slow.succeeded()).c_str());
  std::printf("label +5 %% wrong direction (faster): %d\n", slow.label_faster);
  std::printf("claim A/A false claims (faster or slower): %s\n",
              Rate(aa.claim_faster + aa.claim_slower, aa.succeeded()).c_str());
  std::printf("claim +5 %% detections (slower): %s\n", Rate(slow.claim_slower, slow.succeeded()).c_str());
  std::printf("claim +5 %% wrong direction (faster): %d\n", slow.claim_faster);
  std::vector<double> default_wall = aa.wall_s;
  default_wall.insert(default_wall.end(), slow.wall_s.begin(), slow.wall_s.end());
  std::printf("wall per default compare (rounds %s): median %.2f s, p90 %.2f s\n", Rounds(aa).c_str(),
              Q(default_wall, 0.5), Q(default_wall, 0.9));
  std::printf("wall per sequential compare (rounds %s): median %.2f s, p90 %.2f s\n", Rounds(seq).c_str(),
              Q(seq.wall_s, 0.5), Q(seq.wall_s, 0.9));
  std::vector<double> shares = aa.other_cpu_share;
  shares.insert(shares.end(), slow.other_cpu_share.begin(), slow.other_cpu_share.end());
  std::printf(
      "other processes' share of the job's CPUs during timing (A/A and +5 %%): median %.0f %%, p90 %.0f %%; "
      "busy_machine warnings: %s\n",
      100 * Q(shares, 0.5), 100 * Q(shares, 0.9),
      Rate(aa.busy_machine + slow.busy_machine, aa.succeeded() + slow.succeeded()).c_str());
  std::printf("default / sequential compare wall (A/A medians; target <= 1.2): %.3f\n",
              Q(aa.wall_s, 0.5) / Q(seq.wall_s, 0.5));
}

// The two-file cases' figures (printed when they ran).
void PrintFileFigures(const KindTally& copies, const KindTally& files) {
  std::printf("label A/A copies false verdicts (faster or slower): %s\n",
              Rate(copies.label_faster + copies.label_slower, copies.succeeded()).c_str());
  std::printf("claim A/A copies false claims (faster or slower): %s\n",
              Rate(copies.claim_faster + copies.claim_slower, copies.succeeded()).c_str());
  std::printf("label +1 layer files detections (slower): %s\n", Rate(files.label_slower, files.succeeded()).c_str());
  std::printf("claim +1 layer files detections (slower): %s\n", Rate(files.claim_slower, files.succeeded()).c_str());
  std::printf("+1 layer files wrong direction (label, claim): %d, %d\n", files.label_faster, files.claim_faster);
}

// The small model's figures (printed when they ran).
void PrintSmallFigures(const KindTally& copies, const KindTally& slow) {
  std::printf("claim small A/A copies false claims (faster or slower): %s\n",
              Rate(copies.claim_faster + copies.claim_slower, copies.succeeded()).c_str());
  std::printf("claim small +5 %% detections (slower): %s; wrong direction: %d\n",
              Rate(slow.claim_slower, slow.succeeded()).c_str(), slow.claim_faster);
}

void WriteRatiosCsv(const std::string& path, const std::vector<CompareOutcome>& outcomes) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) GiveUp("--ratios-csv: cannot write " + path);
  std::fprintf(f, "kind,label,claim,round_ratios...\n");
  for (const CompareOutcome& o : outcomes) {
    if (!o.error.empty()) continue;
    std::fprintf(f, "%s,%s,%s", PairKindName(o.kind), v1::Comparison::LatencyChange_Name(o.label).c_str(),
                 v1::PairedEvidence::Claim_Name(o.claim).c_str());
    for (double r : o.round_ratios) std::fprintf(f, ",%.9g", r);
    std::fprintf(f, "\n");
  }
  std::fclose(f);
}

void WritePairsCsv(const std::string& path, const std::vector<CompareOutcome>& outcomes) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) GiveUp("--pairs-csv: cannot write " + path);
  std::fprintf(f, "kind,job,pair,ratio,other_cpu_share\n");
  for (size_t job = 0; job < outcomes.size(); ++job)
    for (size_t k = 0; k < outcomes[job].pair_ratio_share.size(); ++k)
      std::fprintf(f, "%s,%zu,%zu,%.9g,%.4f\n", PairKindName(outcomes[job].kind), job + 1, k + 1,
                   outcomes[job].pair_ratio_share[k].first, outcomes[job].pair_ratio_share[k].second);
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  const Modules modules(flags);
  const CpuHogs hogs(flags.load);  // before the daemon's client threads: fork only a single thread
  BenchmarkDaemon daemon = StartBenchmarkDaemon("validity_benchmark", flags.daemon_path, std::chrono::hours(4));
  const std::vector<PairKind> order =
      InterleavedSchedule(flags.pairs, flags.sequential_pairs, flags.file_pairs, flags.small_pairs);
  std::printf(
      "validity_benchmark: %d A/A + %d +5 %% compares at rounds %d (0: the daemon's default %d), %d sequential "
      "A/A compares at rounds 1; min_run_time_s %g (0: the daemon's default %g), threads %d (0: default), "
      "max_time_s %g and smallest_change %g (0: the daemon's defaults); "
      "%d tanh(Linear(256,256)) layers on %dx256, +1 layer for +5 %%; %d A/A copies + %d +1 layer files compares "
      "(%d layers against a copy, or against %d layers in another file); %d small A/A copies + %d small +5 %% "
      "compares (%d layers on %dx256); %d bursty CPU hogs beside the daemon; check skipped, no diagnostics%s%s\n",
      flags.pairs, flags.pairs, flags.rounds, torchscan::kDefaultRounds, flags.sequential_pairs, flags.min_run_time_s,
      torchscan::kDefaultMinRunTimeS, flags.threads, flags.max_time_s, flags.smallest_change, kLayers, kBatch,
      flags.file_pairs, flags.file_pairs, flags.file_layers, flags.file_layers + 1, flags.small_pairs,
      flags.small_pairs, kLayers, kSmallBatch, hogs.count(),
      flags.packages ? "; the file pairs are AOTInductor packages (.pt2) of the chain" : "",
      flags.quick ? " (--quick: too few jobs for figures that mean much)" : "");
  std::fflush(stdout);  // before the progress lines on stderr
  std::vector<CompareOutcome> outcomes;
  for (size_t i = 0; i < order.size(); ++i) {
    outcomes.push_back(RunCompare(*daemon.client, order[i], CompareSpec(order[i], modules, flags)));
    const CompareOutcome& o = outcomes.back();
    std::fprintf(stderr, "  %zu/%zu %-15s %s\n", i + 1, order.size(), PairKindName(o.kind),
                 o.error.empty() ? (v1::Comparison::LatencyChange_Name(o.label) + ", claim " +
                                    v1::PairedEvidence::Claim_Name(o.claim))
                                       .c_str()
                                 : o.error.c_str());
  }
  daemon.client.reset();
  StopBenchmarkDaemon();
  if (!flags.ratios_csv.empty()) WriteRatiosCsv(flags.ratios_csv, outcomes);
  if (!flags.pairs_csv.empty()) WritePairsCsv(flags.pairs_csv, outcomes);

  const std::vector<PairKind> kinds = {PairKind::kAa,           PairKind::kSlowdown,      PairKind::kSequentialAa,
                                       PairKind::kAaCopies,     PairKind::kSlowdownFiles, PairKind::kSmallAaCopies,
                                       PairKind::kSmallSlowdown};
  std::vector<KindTally> tallies;
  for (PairKind kind : kinds) tallies.push_back(Tally(outcomes, kind));
  PrintTable(tallies, kinds);
  if (flags.pairs > 0) PrintFigures(tallies[0], tallies[1], tallies[2]);
  if (flags.file_pairs > 0) PrintFileFigures(tallies[3], tallies[4]);
  if (flags.small_pairs > 0) PrintSmallFigures(tallies[5], tallies[6]);
  int failed = 0;
  for (const KindTally& t : tallies) failed += t.failed;
  for (const CompareOutcome& o : outcomes)
    if (!o.error.empty()) std::printf("failed %s: %s\n", PairKindName(o.kind), o.error.c_str());
  std::printf("%s\n", failed == 0 ? "ok" : "FAILED: see above");
  return failed == 0 ? 0 : 1;
}
