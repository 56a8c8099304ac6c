// torchscan-worker --job JOB_DIR [--rss-child PATH]: runs one TorchScan job in this fresh
// process. The line protocol and exit codes are in worker/worker_protocol.h.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>

#include "worker/state_folder.h"
#include "worker/worker_job.h"
#include "worker/worker_protocol.h"

namespace {

// This executable, for a calibration's pairs (each runs in a fresh copy of this worker): its
// path, so that the pairs' processes carry its name; /proc/self/exe when that cannot be read
// or the file was replaced since this process started.
std::string SelfPath() {
  std::error_code error;
  const std::string path = std::filesystem::read_symlink("/proc/self/exe", error).string();
  if (error || path.empty() || path.find(" (deleted)") != std::string::npos) return "/proc/self/exe";
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  torchscan::daemon::WorkerFlags flags;
  CLI::App app{"torchscan-worker: runs one TorchScan job (started by torchscand)"};
  app.add_option("--job", flags.job_dir,
                 std::string("job folder holding ") + torchscan::kJobSpecFile + "; " + torchscan::kJobResultFile +
                     " is written there")
      ->required();
  app.add_option("--rss-child", flags.rss_child_path, "torchscan_rss_child path (jobs with rss)");
  flags.self_path = SelfPath();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : torchscan::daemon::kWorkerBadSpec;
  }
  const int code = torchscan::daemon::RunWorkerJob(flags, std::cout, std::cerr);
  // Ends here, without running static destructors: the result is on disk (fsynced) and every
  // RSS child reaped, and LibTorch's teardown (its thread pools, registries and freed
  // allocations) only delayed the job's end: 64 ms between the result's rename and
  // exit_group, measured with strace on the guide's linear comparison (issue 15 item 5).
  std::cout.flush();
  std::cerr.flush();
  std::_Exit(code);
}
