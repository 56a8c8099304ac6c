// The validity benchmark's bookkeeping, free of gRPC and LibTorch: the order its compare jobs
// run in, and the counts its figures come from.
//
// Five kinds of compare job: A/A (a workload against itself, daemon's default rounds or
// --rounds), slowdown (a known +5 % slowdown in the same file, same rounds), sequential A/A
// (rounds 1, the reference for wall time), and, between two different files as users compare
// them, A/A copies (two byte-identical files under different names) and a +2 % slowdown
// (a second file with one more layer). Drift on the machine must hit all kinds alike, so
// they alternate.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "proto/report.pb.h"

namespace torchscan::benchmarks {

enum class PairKind { kAa, kSlowdown, kSequentialAa, kAaCopies, kSlowdownFiles };

// "A/A", "+5 %", "A/A sequential", "A/A copies", "+2 % files".
const char* PairKindName(PairKind kind);

// `pairs` A/A jobs and `pairs` slowdown jobs, alternating (A/A first in even pairs, the
// slowdown first in odd ones, so neither kind always follows the other), with `sequential`
// sequential A/A jobs spread evenly among them: the k-th (k = 1..sequential) right after
// pair ceil(k * pairs / sequential). Negative counts count as 0. With pairs 0 the sequential
// jobs alone. `file_pairs` pairs of A/A copies and +2 % files (alternating which leads, the
// same way) follow pair i of the same file, one file pair per pair, the rest at the end.
std::vector<PairKind> InterleavedSchedule(int pairs, int sequential, int file_pairs = 0);

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
  int succeeded() const { return jobs - failed; }
};

KindTally Tally(const std::vector<CompareOutcome>& outcomes, PairKind kind);

// "3 / 40 (7.5 %)"; "0 / 0 (n/a)" when `of` is 0.
std::string Rate(int count, int of);

}  // namespace torchscan::benchmarks
