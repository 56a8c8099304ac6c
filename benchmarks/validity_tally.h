// The validity benchmark's bookkeeping, free of gRPC and LibTorch: the order its compare jobs
// run in, and the counts its figures come from.
//
// Five kinds of compare job: A/A (a workload against itself, daemon's default rounds or
// --rounds), slowdown (a known +5 % slowdown in the same file, same rounds), sequential A/A
// (rounds 1, the reference for wall time), and, between two different files as users compare
// them, A/A copies (two byte-identical files under different names) and a +2 % slowdown
// (a second file with one more layer); and for a model of about 0.3 ms (issue 40), small A/A
// copies and a small +5 % in one file. Drift on the machine must hit all kinds alike, so they
// alternate.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "proto/report.pb.h"

namespace torchscan::benchmarks {

enum class PairKind { kAa, kSlowdown, kSequentialAa, kAaCopies, kSlowdownFiles, kSmallAaCopies, kSmallSlowdown };

// "A/A", "+5 %", "A/A sequential", "A/A copies", "+1 layer files", "small A/A copies", "small +5 %".
const char* PairKindName(PairKind kind);

// `pairs` A/A jobs and `pairs` slowdown jobs, alternating (A/A first in even pairs, the
// slowdown first in odd ones, so neither kind always follows the other), with `sequential`
// sequential A/A jobs spread evenly among them: the k-th (k = 1..sequential) right after
// pair ceil(k * pairs / sequential). Negative counts count as 0. With pairs 0 the sequential
// jobs alone. `file_pairs` pairs of A/A copies and +1 layer files (alternating which leads, the
// same way) follow pair i of the same file, one file pair per pair, and `small_pairs` pairs of
// small A/A copies and small +5 % after them, likewise; the rest at the end, file pair i before
// small pair i.
std::vector<PairKind> InterleavedSchedule(int pairs, int sequential, int file_pairs = 0, int small_pairs = 0);

// One finished compare job, as the benchmark saw it.
struct CompareOutcome {
  PairKind kind = PairKind::kAa;
  std::string error;                                                  // non-empty: the job failed (the rest is unset)
  v1::Comparison::LatencyChange label = v1::Comparison::unavailable;  // latency_change
  v1::PairedEvidence::Claim claim = v1::PairedEvidence::no_claim;     // evidence.paired.claim
  std::optional<double> relative_change;                              // evidence.relative_change, when not withheld
  int rounds = 0;                    // settings.timing.rounds as the comparison records it
  double wall_s = 0;                 // from Submit to the fetched result
  std::vector<double> round_ratios;  // evidence.paired.round_ratios (after / before per round)
  double other_cpu_share = 0;        // the larger of the runs' timing.load.other_cpu_share
  bool busy_machine = false;         // either run carries a "busy_machine" warning
  double call_s = 0;                 // the baseline's median per-call time
  int discarded_build_pairs = 0;     // evidence.paired.discarded_build_pairs (timed under load)
  // evidence.paired.note says a decided look was withheld, or the load forbade a claim
  bool withheld = false;
  // Each build pair's ratio and the share of the job's CPUs other processes used meanwhile
  // (core/build_pair_decision.h), discarded ones included, in order.
  std::vector<std::pair<double, double>> pair_ratio_share;
};

// The counts of one kind's jobs.
struct KindTally {
  int jobs = 0;    // of this kind, failed included
  int failed = 0;  // the rest below count succeeded jobs only
  int label_faster = 0, label_slower = 0, label_within = 0, label_unavailable = 0;
  int claim_faster = 0, claim_slower = 0, claim_none = 0;
  std::vector<double> wall_s;  // in job order
  std::vector<double> relative_change;
  std::set<int> rounds;                 // every round count recorded
  std::vector<double> other_cpu_share;  // per job: what other processes took of the job's CPUs
  int busy_machine = 0;                 // jobs with a busy_machine warning
  std::vector<double> call_s;           // per job: the baseline's median per-call time
  int discarded_build_pairs = 0;        // over all jobs
  int withheld = 0;                     // jobs whose claim was withheld (load or robustness check)
  int succeeded() const { return jobs - failed; }
};

KindTally Tally(const std::vector<CompareOutcome>& outcomes, PairKind kind);

// "3 / 40 (7.5 %)"; "0 / 0 (n/a)" when `of` is 0.
std::string Rate(int count, int of);

}  // namespace torchscan::benchmarks
