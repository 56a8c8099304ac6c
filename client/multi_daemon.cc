#include "client/multi_daemon.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <mutex>
#include <thread>

#include "client/exit_codes.h"
#include "client/job_commands.h"

namespace torchscan {
namespace {

// What one machine gave.
struct MachineRun {
  std::string address;
  std::string hostname;
  std::string job_id;
  absl::Status status;  // how it failed; OK with a result
  v1::JobResult result;
};

void RunOnMachine(const ClientContext& ctx, const v1::JobSpec& spec, MachineRun* run, std::mutex* print) {
  absl::StatusOr<Connection> connection = ConnectTo(ctx, run->address);
  if (!connection.ok()) {
    run->status = connection.status();
    return;
  }
  DaemonClient& client = *connection->client;
  if (absl::StatusOr<v1::DaemonInfo> info = client.Info(); info.ok()) run->hostname = info->environment().hostname();
  v1::Job finished;
  absl::StatusOr<v1::JobResult> result = RunJobOn(
      client, spec,
      [&](const v1::Job& job) {
        run->job_id = job.id();
        std::lock_guard<std::mutex> lock(*print);
        std::fprintf(stderr, "[%s %s] submitted\n", run->address.c_str(), job.id().c_str());
      },
      {}, &finished);
  if (!result.ok()) {
    run->status = result.status();
    return;
  }
  run->result = *std::move(result);
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

int RunJobOnDaemons(const ClientContext& ctx, const v1::JobSpec& spec, const std::string& output_dir) {
  std::vector<MachineRun> runs(ctx.daemons.size());
  std::mutex print;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].address = NormalizeDaemonAddress(ctx.daemons[i]);
    threads.emplace_back(RunOnMachine, std::cref(ctx), std::cref(spec), &runs[i], &print);
  }
  for (std::thread& t : threads) t.join();

  int exit_code = kExitOk;
  std::vector<std::string> taken;
  for (MachineRun& run : runs) {
    const std::string machine = MachineFolderName(run.hostname, run.address, &taken);
    const std::string heading = machine + " (" + run.address + (run.job_id.empty() ? "" : ", " + run.job_id) + ")";
    if (!run.status.ok()) {
      std::fprintf(stderr, "== %s: %s\n", heading.c_str(), std::string(run.status.message()).c_str());
      exit_code = Worse(exit_code, ExitCodeFor(run.status));
      continue;
    }
    if (!output_dir.empty()) {
      std::string json_path;
      if (absl::Status s = WriteEvidence(run.result, output_dir + "/" + machine, &json_path); !s.ok()) {
        std::fprintf(stderr, "== %s: %s\n", heading.c_str(), std::string(s.message()).c_str());
        exit_code = Worse(exit_code, ExitCodeFor(s));
        continue;
      }
      std::fprintf(stderr, "== %s: wrote %s and its .html\n", heading.c_str(), json_path.c_str());
    }
    if (!ctx.json) std::printf("== %s\n", heading.c_str());
    std::fputs(Summarize(ctx, run.result).c_str(), stdout);
    exit_code = Worse(exit_code, ResultExitCode(run.result));
  }
  return exit_code;
}

}  // namespace torchscan
