// The History RPC's page latency on a daemon that holds many finished jobs (issue 16: a page
// in <= 50 ms with 10,000 jobs), measured over gRPC on a real torchscand (a child process,
// its unix socket). A benchmark that prints figures, not a test.
//
//   bazel build //benchmarks:history_rpc_benchmark //daemon:torchscand //worker:torchscan-worker &&
//   bazel-bin/benchmarks/history_rpc_benchmark bazel-bin/daemon/torchscand [--jobs N] [--calls N] [--restarts N]
//       [--drop-caches] [--quick]
//
// 1. Writes a state folder of --jobs (default 10,000) finished job records (job.json only, as
//    a daemon leaves them: spec, times, an 8-phase timeline, a summary with a machine key)
//    under 20 names: half the jobs under "bench-00" (a benchmark run on every merge), the rest
//    spread over 19 others; every 25th job failed (no summary). No result.json: jobs that have
//    a summary are never read again at load.
// 2. Starts torchscand on it (no spare worker: nothing runs) and times its start: from exec
//    to its socket answering, i.e. loading every record.
// 3. Times each call --calls times (default 200) and prints p50/p95 against the 50 ms
//    target: History's first page and a later page (half-way down "bench-00") at page_size
//    100 and 1000, a first page filtered to succeeded jobs, and ListJobs at limit 100, 1000
//    and all jobs beside them for scale.
// 4. Stops it and starts it again on the same state folder --restarts times (default 1),
//    timing each start: the first start parses every job.json and writes the record cache
//    (daemon/job_cache.h), a restart takes the records from it. --drop-caches (root): empties
//    the kernel's page cache before each start, for a start after a reboot.
// Checks, whose failure exits 1: every job loaded, at each start; paging through "bench-00"
// at page_size 1000 gives each of its jobs once, newest first. Timings are printed, never
// judged by the exit code (a loaded machine is slow). --quick: 200 jobs, 10 calls each.
// Everything gives up after 10 minutes.
#include <grpcpp/grpcpp.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "benchmarks/benchmark_args.h"
#include "benchmarks/benchmark_daemon.h"
#include "io/proto_json.h"
#include "proto/service.grpc.pb.h"
#include "proto/service.pb.h"
#include "proto/spec_limits.h"
#include "worker/state_folder.h"

namespace {

namespace fs = std::filesystem;
namespace v1 = torchscan::v1;
using torchscan::benchmarks::GiveUp;
using Clock = std::chrono::steady_clock;

constexpr auto kGiveUpAfter = std::chrono::seconds(600);
constexpr int kNames = 20;
constexpr double kTargetMs = 50;

std::string JobId(int number) { return absl::StrFormat("%s%06d", torchscan::worker::kJobIdPrefix, number); }

// Half the jobs are "bench-00"'s, the rest go round the other names.
std::string NameOf(int number) {
  return number % 2 == 0 ? "bench-00" : absl::StrFormat("bench-%02d", 1 + (number / 2) % (kNames - 1));
}

v1::Job FinishedJob(int number) {
  v1::Job job;
  job.set_id(JobId(number));
  job.set_submitter("ci");
  v1::JobSpec* spec = job.mutable_spec();
  spec->set_label(NameOf(number));
  spec->set_revision(absl::StrFormat("%040x", 0x9e3779b97f4a7c15ull * number));
  spec->mutable_measure()->mutable_workload()->mutable_model()->set_builtin(v1::ModelSpec::resnet18);
  spec->mutable_options()->set_intra_op_threads(1);
  spec->mutable_options()->set_inter_op_threads(1);
  spec->mutable_options()->set_min_run_time_s(0.2);
  const int minute = number % 60, hour = (number / 60) % 24, day = 1 + (number / 1440) % 28;
  const std::string at = absl::StrFormat("2026-11-%02dT%02d:%02d:", day, hour, minute);
  job.set_submitted_at(at + "00.000Z");
  job.set_started_at(at + "01.000Z");
  job.set_finished_at(at + "09.000Z");
  job.set_phase("done");
  job.set_worker("warm spare");
  v1::Timeline* timeline = job.mutable_timeline();
  timeline->set_started_at(job.submitted_at());
  timeline->set_clock("std::chrono::steady_clock");
  const char* phases[] = {"queue wait",  "worker start (warm spare)", "build", "warm-up", "timing", "profile", "memory",
                          "write result"};
  double t = 0;
  for (const char* phase : phases) {
    v1::PhaseSpan* span = timeline->add_spans();
    span->set_phase(phase);
    span->set_start_s(t);
    t += 0.5 + 0.125 * (number % 7);
    span->set_end_s(t);
  }
  if (number % 25 == 0) {
    job.set_state(v1::Job::failed);
    job.set_error("worker exited with status 3 (workload error): torchscan-worker: out of memory");
    return job;
  }
  job.set_state(v1::Job::succeeded);
  v1::ResultSummary* summary = job.mutable_summary();
  summary->set_run("measured");
  v1::TimingSummary* latency = summary->mutable_latency();
  const double median = 0.004 * (1 + 0.01 * (number % 13));
  latency->set_median_s(median);
  latency->set_q1_s(median * 0.98);
  latency->set_q3_s(median * 1.03);
  latency->set_iqr_s(median * 0.05);
  latency->set_mean_s(median * 1.01);
  latency->set_min_s(median * 0.95);
  latency->set_max_s(median * 1.2);
  latency->set_block_count(48);
  latency->set_total_calls(480);
  latency->set_quantile_method("linear interpolation between order statistics (type 7)");
  summary->set_model("resnet18");
  summary->set_device("cpu");
  summary->set_machine(
      "cpu=Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz; cores=2 logical, 2 physical; memory=7.8 GiB; "
      "os=Debian GNU/Linux 12 (bookworm); kernel=Linux 6.1.0-18-amd64 x86_64; governor=unknown; "
      "turbo=unknown; affinity=0-1; libtorch=2.1.0; blas=libopenblasp-r0.3.21.so; torchscan=0.1.0; "
      "device=Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz");
  return job;
}

absl::Status WriteState(const std::string& state_dir, int jobs) {
  for (int number = 1; number <= jobs; ++number) {
    const fs::path dir = fs::path(state_dir) / torchscan::worker::kStateJobsFolder / JobId(number);
    std::error_code error;
    fs::create_directories(dir, error);
    std::ofstream out(dir / torchscan::worker::kJobRecordFile);
    out << torchscan::ToJson(FinishedJob(number));
    if (error || !out.flush())
      return absl::InternalError(absl::StrCat("cannot write ", (dir / torchscan::worker::kJobRecordFile).string()));
  }
  return absl::OkStatus();
}

// Writes dirty pages out and empties the kernel's page cache (root only; else says so once).
void DropPageCache() {
  ::sync();
  std::ofstream drop("/proc/sys/vm/drop_caches");
  drop << "3\n";
  static bool warned = false;
  if (!drop.flush() && !warned) {
    std::fprintf(stderr, "history_rpc_benchmark: --drop-caches: cannot write /proc/sys/vm/drop_caches (run as root)\n");
    warned = true;
  }
}

// p-th percentile (nearest rank) of `ms`.
double Percentile(std::vector<double> ms, double p) {
  if (ms.empty()) return NAN;
  std::sort(ms.begin(), ms.end());
  const size_t rank = static_cast<size_t>(std::ceil(p / 100 * ms.size()));
  return ms[std::max<size_t>(rank, 1) - 1];
}

class Rpc {
 public:
  explicit Rpc(const std::string& address) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);  // ListJobs of every job is tens of MB
    stub_ = v1::TorchScan::NewStub(grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
  }
  v1::HistoryResponse History(const v1::HistoryRequest& request) {
    v1::HistoryResponse response;
    Check(stub_->History(Context().get(), request, &response), "History");
    return response;
  }
  v1::ListJobsResponse ListJobs(int limit) {
    v1::ListJobsRequest request;
    request.set_limit(limit);
    v1::ListJobsResponse response;
    Check(stub_->ListJobs(Context().get(), request, &response), "ListJobs");
    return response;
  }

 private:
  static std::unique_ptr<grpc::ClientContext> Context() {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    return context;
  }
  static void Check(const grpc::Status& status, const char* method) {
    if (!status.ok()) GiveUp(absl::StrCat(method, ": ", status.error_message()));
  }
  std::unique_ptr<v1::TorchScan::Stub> stub_;
};

v1::HistoryRequest Page(int page_size, const std::string& token = "") {
  v1::HistoryRequest request;
  request.set_name("bench-00");
  request.set_page_size(page_size);
  request.set_page_token(token);
  return request;
}

// The token of page `page` (0-based) of bench-00 at `page_size`; "" when there is no such page.
std::string TokenOfPage(Rpc& rpc, int page_size, int page) {
  std::string token;
  for (int i = 0; i < page; ++i) {
    token = rpc.History(Page(page_size, token)).next_page_token();
    if (token.empty()) return "";
  }
  return token;
}

// Prints one row: p50 and p95 of `calls` timed calls of `call`.
void Row(const std::string& what, int calls, bool judged, const std::function<int()>& call) {
  std::vector<double> ms;
  int jobs = 0;
  for (int i = 0; i < calls; ++i) {
    const auto start = Clock::now();
    jobs = call();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  const double p50 = Percentile(ms, 50), p95 = Percentile(ms, 95);
  std::printf("  %-44s %6d %9.2f %9.2f  %s\n", what.c_str(), jobs, p50, p95,
              !judged            ? "(for scale)"
              : p95 <= kTargetMs ? "within 50 ms"
                                 : "OVER 50 ms");
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = torchscan::benchmarks::TakeQuickFlag(&argc, argv);
  int jobs = quick ? 200 : 10000, calls = quick ? 10 : 200;
  std::string daemon_path = "bazel-bin/daemon/torchscand";
  int restarts = 1;
  bool drop_caches = false;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--jobs") == 0 || std::strcmp(argv[i], "--calls") == 0 ||
        std::strcmp(argv[i], "--restarts") == 0) {
      const std::optional<int> n = has_value ? torchscan::benchmarks::PositiveInt(argv[i + 1]) : std::nullopt;
      if (!n) {
        std::fprintf(stderr, "history_rpc_benchmark: %s: give a whole number >= 1\n", argv[i]);
        return 2;
      }
      (std::strcmp(argv[i], "--jobs") == 0 ? jobs : std::strcmp(argv[i], "--calls") == 0 ? calls : restarts) = *n;
      ++i;
    } else if (std::strcmp(argv[i], "--drop-caches") == 0) {
      drop_caches = true;
    } else if (argv[i][0] == '-') {
      std::fprintf(stderr,
                   "history_rpc_benchmark: unknown flag %s (--jobs N, --calls N, --restarts N, --drop-caches, "
                   "--quick)\n",
                   argv[i]);
      return 2;
    } else {
      daemon_path = argv[i];
    }
  }

  // The state folder outlives each daemon (whose own folder is removed when it stops): the
  // daemon's state_dir is a link to it.
  std::string kept_state = (fs::temp_directory_path() / "history-rpc-benchmark-XXXXXX").string();
  if (::mkdtemp(kept_state.data()) == nullptr) GiveUp("cannot create a folder under /tmp");
  double write_s = 0;  // of the last prepare_state: writing (the first time), emptying the cache, linking
  bool written = false;
  torchscan::EmbeddedDaemonOptions options;
  options.spare_worker = false;  // nothing runs: no worker loading beside the timings
  options.prepare_state = [&](const std::string& state_dir) {
    const auto start = Clock::now();
    if (!written) {
      if (absl::Status s = WriteState(kept_state, jobs); !s.ok()) return s;
      written = true;
    }
    if (drop_caches) DropPageCache();
    std::error_code error;
    fs::create_symlink(kept_state, state_dir, error);
    if (error) return absl::InternalError(absl::StrCat("cannot link ", state_dir, ": ", error.message()));
    write_s = std::chrono::duration<double>(Clock::now() - start).count();
    return absl::OkStatus();
  };
  const auto start = Clock::now();
  torchscan::benchmarks::BenchmarkDaemon daemon =
      torchscan::benchmarks::StartBenchmarkDaemon("history_rpc_benchmark", daemon_path, kGiveUpAfter, options);
  const double start_s = std::chrono::duration<double>(Clock::now() - start).count() - write_s;
  std::printf("history_rpc_benchmark: %d finished jobs under %d names (%d under bench-00), written in %.2f s\n", jobs,
              kNames, jobs / 2, write_s);
  std::printf("torchscand start with them (exec to its socket answering%s): %.3f s\n",
              drop_caches ? ", page cache emptied" : "", start_s);

  Rpc rpc(daemon.address);
  bool ok = true;
  const int listed = rpc.ListJobs(0).jobs_size();
  if (listed != jobs) {
    std::printf("FAILED: the daemon lists %d jobs of the %d written\n", listed, jobs);
    ok = false;
  }
  // Paging through bench-00 gives each of its jobs once, newest first.
  std::vector<std::string> paged;
  std::string token;
  do {
    const v1::HistoryResponse page = rpc.History(Page(torchscan::kMaxHistoryPageSize, token));
    for (const v1::Job& job : page.jobs()) paged.push_back(job.id());
    token = page.next_page_token();
  } while (!token.empty());
  std::vector<std::string> expected;
  for (int number = jobs; number >= 1; --number)
    if (NameOf(number) == "bench-00") expected.push_back(JobId(number));
  if (paged != expected) {
    std::printf("FAILED: paging through bench-00 gave %zu jobs, not its %zu newest first\n", paged.size(),
                expected.size());
    ok = false;
  }

  std::printf("\n%d calls each (ms; target: a History page in <= %.0f ms):\n  %-44s %6s %9s %9s\n", calls, kTargetMs,
              "call", "jobs", "p50", "p95");
  for (int page_size : {100, torchscan::kMaxHistoryPageSize}) {
    Row(absl::StrCat("History first page, page_size ", page_size), calls, true,
        [&] { return rpc.History(Page(page_size)).jobs_size(); });
    const int pages = (static_cast<int>(expected.size()) + page_size - 1) / page_size;
    const std::string later = TokenOfPage(rpc, page_size, pages / 2);
    if (later.empty()) {
      std::printf("  %-44s  (bench-00 has one page at this size)\n",
                  absl::StrCat("History later page, page_size ", page_size).c_str());
    } else {
      Row(absl::StrCat("History page ", pages / 2 + 1, " of ", pages, ", page_size ", page_size), calls, true,
          [&] { return rpc.History(Page(page_size, later)).jobs_size(); });
    }
  }
  Row("History first page, succeeded only, size 100", calls, true, [&] {
    v1::HistoryRequest request = Page(100);
    request.add_states(v1::Job::succeeded);
    return rpc.History(request).jobs_size();
  });
  Row("ListJobs limit 100", calls, false, [&] { return rpc.ListJobs(100).jobs_size(); });
  Row("ListJobs limit 1000", calls, false, [&] { return rpc.ListJobs(1000).jobs_size(); });
  Row("ListJobs every job", std::max(1, calls / 20), false, [&] { return rpc.ListJobs(0).jobs_size(); });

  for (int restart = 1; restart <= restarts; ++restart) {
    daemon.client.reset();
    torchscan::benchmarks::StopBenchmarkDaemon();
    const auto again = Clock::now();
    daemon = torchscan::benchmarks::StartBenchmarkDaemon("history_rpc_benchmark", daemon_path, kGiveUpAfter, options);
    const double again_s = std::chrono::duration<double>(Clock::now() - again).count() - write_s;
    const int relisted = Rpc(daemon.address).ListJobs(0).jobs_size();
    std::printf("torchscand restart %d on the same state folder%s: %.3f s\n", restart,
                drop_caches ? " (page cache emptied)" : "", again_s);
    if (relisted != jobs) {
      std::printf("FAILED: after restart %d the daemon lists %d jobs of the %d written\n", restart, relisted, jobs);
      ok = false;
    }
  }

  daemon.client.reset();
  torchscan::benchmarks::StopBenchmarkDaemon();
  std::error_code error;
  fs::remove_all(kept_state, error);
  return ok ? 0 : 1;
}
