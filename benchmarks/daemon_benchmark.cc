// torchscand's own costs, measured on a real daemon (a child process) over its unix socket:
// the figures of issue 4's "Performance" section. A benchmark that prints figures, not a test.
//
//   bazel build //benchmarks:daemon_benchmark //daemon:torchscand //worker:torchscan-worker
//     //passes:torchscan_rss_child &&
//   bazel-bin/benchmarks/daemon_benchmark bazel-bin/daemon/torchscand [--quick]
//
// The daemon runs with its defaults (max queue 100) on a private socket and state folder under
// /tmp, started as benchmarks/benchmark_daemon.h says (as root too). Every job is tiny: measure
// linear, min_run_time_s 0.001, min_blocks 1, no diagnostics.
//  1. Idle RSS: the daemon's VmRSS right after start and after all jobs below; it should stay
//     flat, since the daemon never loads LibTorch (each job runs in a fresh worker).
//  2. Idle latency, 5 sequential jobs: submit-to-start = the job's started_at minus the moment
//     Submit was called, and minus the moment it returned to us (negative: the job had started
//     before the reply arrived). Same machine clock; started_at is truncated to 1 ms. Per-job
//     overhead = finished_at - started_at - the report's timing.timed_total_s, i.e. worker
//     start, LibTorch load, workload build, warm-up and the atomic result write.
//  3. 50 clients at once, each with its own DaemonClient (channel), each submitting 2 jobs:
//     accepted, refused (by reason), succeeded, failed, lost (accepted but not found or not
//     finished at the end; must be 0), overlapping executions (daemon/job_timeline.h; must be 0)
//     and the wall time until all finished.
//  4. The job sandbox's cost: tiny jobs from Submit to finished, on daemons with --sandbox off
//     and namespaces started in turn (a fresh daemon per block, the order swapped each round),
//     with a cold worker per job and with the warm spare (2 s between jobs, so that the next
//     spare is loaded, as in a queue with gaps); medians and namespaces ÷ off.
// --quick: 1 sequential job, 3 clients x 1 job and 1 job per sandbox block, to check that the benchmark runs
// (//tests:readme_benchmarks_test); figures from so few jobs mean little.
// Everything gives up after 10 minutes. Exit 0 when every figure that must hold holds, else 1.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/benchmark_args.h"
#include "benchmarks/benchmark_daemon.h"
#include "client/daemon_client.h"
#include "client/embedded_daemon.h"
#include "daemon/job_timeline.h"
#include "proto/service.pb.h"

namespace {

namespace v1 = torchscan::v1;
using torchscan::DaemonClient;
using torchscan::benchmarks::BenchmarkDaemon;
using torchscan::benchmarks::GiveUp;
using torchscan::benchmarks::StartBenchmarkDaemon;
using torchscan::benchmarks::StopBenchmarkDaemon;
using torchscan::daemon::CountOverlappingExecutions;
using torchscan::daemon::ParseRfc3339Seconds;
using torchscan::daemon::VmRssMiB;
using Clock = std::chrono::steady_clock;

// How many jobs each figure uses: the full run, or --quick's.
struct Scale {
  int sequential_jobs = 5;
  int clients = 50;
  int jobs_per_client = 2;
  int sandbox_rounds = 4;  // figure 4: rounds of (off, namespaces) blocks per worker kind
  int sandbox_jobs = 3;    // figure 4: jobs per block
};
constexpr Scale kQuickScale = {1, 3, 1, 1, 1};
constexpr auto kGiveUpAfter = std::chrono::seconds(600);

double NowEpochSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

v1::JobSpec TinyJob(const std::string& label) {
  v1::JobSpec spec;
  spec.set_label(label);
  spec.mutable_measure()->mutable_workload()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  spec.mutable_options()->set_min_run_time_s(0.001);
  spec.mutable_options()->set_min_blocks(1);
  spec.mutable_options()->set_skip_diagnostics(true);
  return spec;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? NAN : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double Max(const std::vector<double>& v) { return v.empty() ? NAN : *std::max_element(v.begin(), v.end()); }

// Figure 2: `jobs` jobs one after the other on the idle daemon. False when one failed.
bool MeasureIdleLatency(DaemonClient& client, int jobs) {
  bool ok = true;
  std::vector<double> call_ms, latency_ms, overhead_ms;
  std::printf("\nidle daemon, %d sequential tiny jobs (ms):\n  %-4s %12s %14s %14s %12s\n", jobs, "job", "call->start",
              "return->start", "job overhead", "timed total");
  for (int i = 0; i < jobs; ++i) {
    const double called = NowEpochSeconds();
    absl::StatusOr<v1::Job> submitted = client.Submit(TinyJob("latency"));
    const double returned = NowEpochSeconds();
    if (!submitted.ok()) GiveUp("submit: " + std::string(submitted.status().message()));
    absl::StatusOr<v1::Job> job = client.Watch(submitted->id(), nullptr);
    if (!job.ok() || job->state() != v1::Job::succeeded) {
      std::printf("  %-4d failed: %s\n", i + 1, job.ok() ? job->error().c_str() : job.status().ToString().c_str());
      ok = false;
      continue;
    }
    absl::StatusOr<v1::JobResult> result = client.FetchResult(job->id());
    if (!result.ok()) GiveUp("fetch: " + std::string(result.status().message()));
    const double started = ParseRfc3339Seconds(job->started_at()), finished = ParseRfc3339Seconds(job->finished_at());
    const double timed = result->report().timing().timed_total_s();
    call_ms.push_back((started - called) * 1e3);
    latency_ms.push_back((started - returned) * 1e3);
    overhead_ms.push_back((finished - started - timed) * 1e3);
    std::printf("  %-4d %12.1f %14.1f %14.0f %12.2f\n", i + 1, call_ms.back(), latency_ms.back(), overhead_ms.back(),
                timed * 1e3);
  }
  std::printf(
      "  submit-to-start  median %.1f ms, max %.1f ms from the call; median %.1f ms, max %.1f ms from its "
      "return (1 ms resolution)\n",
      Median(call_ms), Max(call_ms), Median(latency_ms), Max(latency_ms));
  std::printf("  per-job overhead median %.0f ms, max %.0f ms (worker start + LibTorch load + build + write)\n",
              Median(overhead_ms), Max(overhead_ms));
  return ok;
}

struct Submission {
  std::string id;       // accepted
  std::string refusal;  // or refused: the status
};

// Figure 3, the load: scale.clients clients, each on its own channel, submit
// scale.jobs_per_client jobs at once and watch them until finished. Sets `wall_s` from the go
// signal until all threads ended.
std::vector<Submission> SubmitFromManyClients(const std::string& address, const Scale& scale, double* wall_s) {
  const int per_client = scale.jobs_per_client;
  std::vector<Submission> submissions(scale.clients * per_client);
  std::atomic<int> connected{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int c = 0; c < scale.clients; ++c) {
    threads.emplace_back([&, c] {
      absl::StatusOr<std::unique_ptr<DaemonClient>> own = DaemonClient::Connect(address, {}, 30);
      ++connected;
      while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      for (int j = 0; j < per_client; ++j) {
        Submission& s = submissions[c * per_client + j];
        if (!own.ok()) {
          s.refusal = "connect: " + own.status().ToString();
          continue;
        }
        absl::StatusOr<v1::Job> job = (*own)->Submit(TinyJob("client " + std::to_string(c)));
        if (job.ok()) s.id = job->id();
        else s.refusal = job.status().ToString();
      }
      for (int j = 0; j < per_client; ++j)  // until finished; the final count uses GetJob
        if (const std::string& id = submissions[c * per_client + j].id; !id.empty() && own.ok())
          (void)(*own)->Watch(id, nullptr);
    });
  }
  while (connected < scale.clients) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto start = Clock::now();
  go = true;
  for (std::thread& t : threads) t.join();
  *wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return submissions;
}

// Figure 3, the outcome of every submission as the daemon reports it at the end.
struct Outcomes {
  int accepted = 0, refused = 0, succeeded = 0, failed = 0, lost = 0;
  std::map<std::string, int> reasons, failures;
  std::vector<v1::Job> executed;  // every job that started and finished, succeeded or not
};

Outcomes CountOutcomes(DaemonClient& client, const std::vector<Submission>& submissions) {
  Outcomes o;
  for (const Submission& s : submissions) {
    if (s.id.empty()) {
      ++o.refused;
      ++o.reasons[s.refusal];
      continue;
    }
    ++o.accepted;
    absl::StatusOr<v1::Job> job = client.GetJob(s.id);
    if (!job.ok() || !torchscan::IsFinished(job->state())) {
      ++o.lost;
      continue;
    }
    if (job->state() == v1::Job::succeeded) {
      ++o.succeeded;
    } else {
      ++o.failed;
      ++o.failures[v1::Job::State_Name(job->state()) + ": " + job->error()];
    }
    if (!job->started_at().empty() && !job->finished_at().empty()) o.executed.push_back(*job);
  }
  return o;
}

// Prints figure 3; false when a job was lost, failed or overlapped another.
bool PrintManyClients(const Outcomes& o, const Scale& scale, double wall_s, int max_queue) {
  const int overlaps = CountOverlappingExecutions(o.executed);
  std::printf("\n%d clients x %d tiny jobs submitted at once (max queue %d):\n", scale.clients, scale.jobs_per_client,
              max_queue);
  std::printf("  accepted %d, refused %d, succeeded %d, failed %d, lost %d (must be 0)\n", o.accepted, o.refused,
              o.succeeded, o.failed, o.lost);
  for (const auto& [reason, n] : o.reasons) std::printf("  refused x%d: %s\n", n, reason.c_str());
  for (const auto& [error, n] : o.failures) std::printf("  failed x%d: %s\n", n, error.c_str());
  std::printf("  overlapping executions %d of %zu executed jobs (must be 0)\n", overlaps, o.executed.size());
  std::printf("  wall time %.1f s until all finished (%.0f ms per executed job)\n", wall_s,
              o.executed.empty() ? NAN : wall_s * 1e3 / o.executed.size());
  return o.lost == 0 && overlaps == 0 && o.failed == 0;
}

// Figure 4: one block of `jobs` tiny jobs on a fresh daemon; appends each job's wall time
// (Submit called to Watch returned, s). False when one failed.
bool SandboxBlock(const std::string& daemon_path, bool sandboxed, bool spare, int jobs, std::vector<double>* wall_s) {
  torchscan::EmbeddedDaemonOptions options;
  options.spare_worker = spare;
  options.sandboxed = sandboxed;
  BenchmarkDaemon daemon = StartBenchmarkDaemon("daemon_benchmark", daemon_path, kGiveUpAfter, options);
  bool ok = true;
  for (int i = 0; i < jobs; ++i) {
    if (spare) std::this_thread::sleep_for(std::chrono::seconds(2));  // the spare loads
    const auto start = Clock::now();
    absl::StatusOr<v1::Job> submitted = daemon.client->Submit(TinyJob("sandbox"));
    if (!submitted.ok()) GiveUp("submit: " + std::string(submitted.status().message()));
    absl::StatusOr<v1::Job> job = daemon.client->Watch(submitted->id(), nullptr);
    if (!job.ok() || job->state() != v1::Job::succeeded) {
      std::printf("  %s job failed: %s\n", sandboxed ? "sandboxed" : "unsandboxed",
                  job.ok() ? job->error().c_str() : job.status().ToString().c_str());
      ok = false;
      continue;
    }
    wall_s->push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  daemon.client.reset();
  StopBenchmarkDaemon();
  return ok;
}

bool MeasureSandboxCost(const std::string& daemon_path, const Scale& scale) {
  bool ok = true;
  std::printf("\nthe job sandbox's cost, tiny jobs from Submit to finished, %d rounds of %d jobs per daemon (s):\n",
              scale.sandbox_rounds, scale.sandbox_jobs);
  for (const bool spare : {false, true}) {
    std::vector<double> off, on;
    for (int round = 0; round < scale.sandbox_rounds; ++round)
      for (const bool sandboxed : {round % 2 == 1, round % 2 == 0})
        ok = SandboxBlock(daemon_path, sandboxed, spare, scale.sandbox_jobs, sandboxed ? &on : &off) && ok;
    std::printf("  %-12s off median %.3f (%zu jobs), namespaces median %.3f (%zu jobs): namespaces / off %.3f\n",
                spare ? "warm spare" : "cold worker", Median(off), off.size(), Median(on), on.size(),
                Median(on) / Median(off));
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = torchscan::benchmarks::TakeQuickFlag(&argc, argv);
  const Scale scale = quick ? kQuickScale : Scale{};
  if (argc > 2) {
    std::fprintf(stderr, "usage: daemon_benchmark [TORCHSCAND, default bazel-bin/daemon/torchscand] [--quick]\n");
    return 2;
  }
  const std::string daemon_path = argc > 1 ? argv[1] : "bazel-bin/daemon/torchscand";
  BenchmarkDaemon daemon = StartBenchmarkDaemon("daemon_benchmark", daemon_path, kGiveUpAfter);
  absl::StatusOr<v1::DaemonInfo> info = daemon.client->Info();
  if (!info.ok()) GiveUp("info: " + std::string(info.status().message()));
  const int max_queue = info->config().limits().max_queue_length();
  const double rss_idle = VmRssMiB(daemon.pid);
  std::printf("torchscand %s, pid %d, max queue %d, socket %s%s\n", info->version().c_str(), daemon.pid, max_queue,
              daemon.address.c_str(), quick ? " (--quick: too few jobs for figures that mean much)" : "");

  bool ok = MeasureIdleLatency(*daemon.client, scale.sequential_jobs);
  double wall_s = 0;
  const std::vector<Submission> submissions = SubmitFromManyClients(daemon.address, scale, &wall_s);
  const Outcomes outcomes = CountOutcomes(*daemon.client, submissions);
  ok = PrintManyClients(outcomes, scale, wall_s, max_queue) && ok;

  // Figure 1: idle RSS before and after all jobs.
  const double rss_after = VmRssMiB(daemon.pid);
  std::printf("\ntorchscand VmRSS: %.1f MiB idle after start, %.1f MiB idle after %d jobs (%+.1f MiB)\n", rss_idle,
              rss_after, scale.sequential_jobs + outcomes.accepted, rss_after - rss_idle);

  daemon.client.reset();
  StopBenchmarkDaemon();
  ok = MeasureSandboxCost(daemon_path, scale) && ok;
  std::printf("%s\n", ok ? "ok" : "FAILED: see above");
  return ok ? 0 : 1;
}
