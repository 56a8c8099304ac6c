#include "client/multi_daemon.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "client/exit_codes.h"
#include "client/flag_names.h"
#include "client/interrupt.h"
#include "client/output_folder.h"
#include "client/run_job_commands.h"

namespace torchscan {
namespace {

// What one machine gave.
struct MachineRun {
  std::string address;
  std::string hostname;
  std::string job_id;
  v1::Job job;          // as last seen: finished, else as submitted; empty when none was accepted
  absl::Status status;  // how it failed; OK with a result
  v1::JobResult result;
};

// The clients waiting on their machines, for an interrupt to stop.
struct Waiting {
  std::mutex mutex;
  std::vector<DaemonClient*> clients;
  void StopAll() {
    std::lock_guard<std::mutex> lock(mutex);
    for (DaemonClient* c : clients) c->StopWatching();
  }
};

void RunOnMachine(const ClientContext& ctx, const v1::JobSpec& spec, const JobRunOptions& options, MachineRun* run,
                  std::mutex* print, Waiting* waiting, const InterruptWatch* interrupts) {
  absl::StatusOr<Connection> connection = ConnectTo(ctx, run->address);
  if (!connection.ok()) {
    run->status = connection.status();
    return;
  }
  DaemonClient& client = *connection->client;
  {
    std::lock_guard<std::mutex> lock(waiting->mutex);
    waiting->clients.push_back(&client);
  }
  if (interrupts->interrupted()) client.StopWatching();
  if (absl::StatusOr<v1::DaemonInfo> info = client.Info(); info.ok()) run->hostname = info->environment().hostname();
  v1::Job submitted, finished;
  absl::StatusOr<v1::JobResult> result = RunJobOn(
      client, spec, /*resident=*/true,
      [&](const v1::Job& job) {
        submitted = job;
        run->job_id = job.id();
        std::lock_guard<std::mutex> lock(*print);
        std::fprintf(stderr, "[%s %s] submitted\n", run->address.c_str(), job.id().c_str());
      },
      {}, &finished);
  if (!finished.id().empty() || !submitted.id().empty()) run->job = finished.id().empty() ? submitted : finished;
  if (interrupts->interrupted() && !submitted.id().empty() && !IsFinished(finished.state())) {
    std::lock_guard<std::mutex> lock(*print);
    HandleInterruptedJob(client, submitted, options.cancel_on_interrupt, /*private_daemon=*/false,
                         interrupts->signal());
    run->status = absl::CancelledError("interrupted while waiting for job " + submitted.id());
  } else if (!result.ok()) {
    const absl::Status& s = result.status();
    run->status = options.spec_from_flags ? absl::Status(s.code(), WithFlagNames(std::string(s.message()))) : s;
  } else {
    run->result = *std::move(result);
  }
  std::lock_guard<std::mutex> lock(waiting->mutex);
  waiting->clients.erase(std::find(waiting->clients.begin(), waiting->clients.end(), &client));
}

// Exit codes ranked: a machine that failed outranks a failed check, which outranks success.
int Worse(int a, int b) {
  auto rank = [](int code) { return code == kExitOk ? 0 : code == kExitCheckFailed ? 1 : 2; };
  return rank(b) > rank(a) ? b : a;
}

}  // namespace

std::string MachineFolderName(const std::string& hostname, const std::string& address,
                              std::vector<std::string>* taken) {
  std::string base = hostname.empty() ? address : hostname;
  for (char& c : base)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  if (base.empty() || base == "." || base == "..") base = "machine";
  std::string name = base;
  for (int n = 2; std::find(taken->begin(), taken->end(), name) != taken->end(); ++n)
    name = base + "-" + std::to_string(n);
  taken->push_back(name);
  return name;
}

int RunJobOnDaemons(const ClientContext& ctx, const v1::JobSpec& spec, const JobRunOptions& options) {
  const absl::Status output_ok =
      options.output_dir.empty()
          ? CheckCurrentFolderWritable()
          : CheckOutputFolder(options.output_dir,
                              spec.has_calibrate() ? CalibrationFiles() : EvidenceFiles(spec.has_compare()),
                              options.force, /*per_machine=*/true);
  if (!output_ok.ok()) return ReportError(output_ok);
  std::vector<MachineRun> runs(ctx.daemons.size());
  std::mutex print;
  Waiting waiting;
  InterruptWatch interrupts([&] { waiting.StopAll(); });
  std::vector<std::thread> threads;
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].address = NormalizeDaemonAddress(ctx.daemons[i]);
    threads.emplace_back(RunOnMachine, std::cref(ctx), std::cref(spec), std::cref(options), &runs[i], &print, &waiting,
                         &interrupts);
  }
  for (std::thread& t : threads) t.join();

  int exit_code = kExitOk;
  v1::JobCommandOutput output;  // --json
  std::vector<std::string> taken;
  for (MachineRun& run : runs) {
    v1::DaemonJobOutput* out = output.add_daemons();
    out->set_daemon(run.address);
    if (!run.job.id().empty()) *out->mutable_job() = run.job;
    if (interrupts.interrupted()) {
      out->set_error(run.status.ok() ? "" : std::string(run.status.message()));
      continue;
    }
    const std::string machine = MachineFolderName(run.hostname, run.address, &taken);
    const std::string heading = machine + " (" + run.address + (run.job_id.empty() ? "" : ", " + run.job_id) + ")";
    if (!run.status.ok()) {
      out->set_error(std::string(run.status.message()));
      std::fprintf(stderr, "== %s: %s\n", heading.c_str(), out->error().c_str());
      exit_code = Worse(exit_code, ExitCodeFor(run.status));
      continue;
    }
    *out->mutable_result() = run.result;
    const std::string dir =
        (options.output_dir.empty() ? DefaultOutputFolder(run.job_id) : options.output_dir) + "/" + machine;
    std::string json_path;
    if (absl::Status s = WriteEvidence(run.result, dir, &json_path); !s.ok()) {
      out->set_error(absl::StrCat(
          "job ", run.job_id, " succeeded, but its evidence could not be written: ", s.message(),
          "; fetch it again with `", JobsCommandLine(run.address, "fetch " + run.job_id + " --output DIR"), "`"));
      std::fprintf(stderr, "== %s: %s\n", heading.c_str(), out->error().c_str());
      exit_code = Worse(exit_code, ExitCodeFor(s));
      continue;
    }
    SetEvidencePaths(json_path, out);
    std::fprintf(stderr, "== %s: wrote %s and its .html\n", heading.c_str(), json_path.c_str());
    if (!ctx.json) std::printf("== %s\n%s", heading.c_str(), Summarize(ctx, run.result).c_str());
    exit_code = Worse(exit_code, ResultExitCode(run.result, ctx.gate));
  }
  if (interrupts.interrupted()) exit_code = kExitInterrupted;
  if (ctx.json) PrintJobCommandOutput(&output, exit_code);
  return exit_code;
}

}  // namespace torchscan
