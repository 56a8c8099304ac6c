// torchscan-node-job --config <state_dir>/slurm/node-config.json --job ID
//
// One job of a Slurm front daemon (slurm_front.h), run on the node Slurm gave it, under srun
// inside the job's exclusive allocation. The state folder is shared storage: the job's folder
// there holds its spec, and receives its result and worker.stderr. It runs the job exactly
// as torchscand runs one on its own machine (job_runner.h: a fresh worker with the
// configuration's limits, user and sandbox, and its RSS children), writing each progress line
// of the worker to stdout (Slurm's node.log, which the front reads) and, at the end,
// <state_dir>/slurm/<id>/node-outcome.txt (node_outcome.h). The configuration is the front's,
// written by the front for its nodes (program paths of the nodes; no cpu_set: Slurm gives
// the CPUs). SIGTERM or SIGINT (scancel, a node going down) kills the worker; the job is
// then "killed". Exit codes: 0 succeeded, 1 the job failed or was killed, 2 bad arguments.
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>

#include "absl/strings/str_cat.h"
#include "daemon/config.h"
#include "daemon/job_runner.h"
#include "daemon/job_store.h"
#include "daemon/node_outcome.h"
#include "io/file_io.h"
#include "process/exit_status.h"
#include "worker/job_spec_file.h"
#include "worker/state_folder.h"
#include "worker/worker_protocol.h"

namespace {

namespace d = torchscan::daemon;
namespace w = torchscan::worker;

void Say(const std::string& line) { std::cout << line << std::endl; }

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

}  // namespace

int main(int argc, char** argv) {
  std::string config_path;
  std::string id;
  CLI::App app{"torchscan-node-job: runs one job of a Slurm front daemon on this node"};
  app.add_option("--config", config_path, "the front's node configuration (<state_dir>/slurm/node-config.json)")
      ->required();
  app.add_option("--job", id, "the job's id, e.g. job-000001")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  absl::StatusOr<torchscan::v1::DaemonConfig> config = d::LoadConfigFile(config_path);
  if (!config.ok()) {
    std::cerr << "torchscan-node-job: " << config.status().message() << "\n";
    return 2;
  }
  if (d::JobStore::JobNumber(id) < 0) {
    std::cerr << "torchscan-node-job: --job: \"" << id << "\" is not a job id like job-000001\n";
    return 2;
  }
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);  // a worker's orphans are reaped here (process/supervise.h)

  d::WorkerControl control;
  std::thread([&control, stop_signals] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    control.Kill(absl::StrCat("Slurm stopped the job on ", HostName(), " (", torchscan::process::SignalName(signal),
                              ": scancel, the time limit or the node going down)"));
  }).detach();

  const std::string host = HostName();
  const std::string outcome_path =
      absl::StrCat(config->state_dir(), "/", w::kSlurmFolder, "/", id, "/", w::kNodeOutcomeFile);
  d::JobRunOutcome outcome;
  Say("node " + host);
  absl::StatusOr<d::JobIsolation> isolation = d::OpenJobIsolation(*config);
  d::JobStore store(config->state_dir());
  torchscan::v1::JobSpec spec;
  if (!isolation.ok()) {
    outcome.error = absl::StrCat("on node ", host, ": ", isolation.status().message());
  } else if (absl::Status s = w::LoadJobSpec(store.JobDir(id), &spec); !s.ok()) {
    outcome.error = absl::StrCat("on node ", host, ": ", s.message(),
                                 " (is state_dir shared storage, at the same path "
                                 "on every node?)");
  } else {
    d::JobRunCallbacks callbacks;
    callbacks.on_phase = [](const std::string& phase) { Say(w::FormatPhaseLine(phase)); };
    callbacks.on_blocks = [](int64_t blocks) { Say(w::FormatBlocksLine(blocks)); };
    outcome = d::RunJob(store, id, spec, d::RunOptionsOf(*config, *isolation), &control, callbacks);
  }
  if (absl::Status s = torchscan::WriteFileAtomic(outcome_path, d::FormatNodeOutcome(outcome, host), 0600); !s.ok()) {
    std::cerr << "torchscan-node-job: " << s.message() << "\n";
    return 1;
  }
  return outcome.state == torchscan::v1::Job::succeeded ? 0 : 1;
}
