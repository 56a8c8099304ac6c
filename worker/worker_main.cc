// torchscan-worker --job JOB_DIR [--rss-child PATH] [--rss-waiting S:E ...]: runs one
// TorchScan job in this fresh process (--rss-waiting: RSS children torchscand started with
// it). torchscan-worker --spare [--rss-child PATH]: a warm spare, which loads, says
// "ready" and then runs the one job torchscand hands it on stdin. The line protocol, the
// handoff and the exit codes are in worker/worker_protocol.h.
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <ext/stdio_filebuf.h>

#include <CLI/CLI.hpp>

#include "passes/peak_rss.h"
#include "worker/state_folder.h"
#include "worker/worker_job.h"
#include "worker/worker_protocol.h"

namespace {

namespace w = torchscan::worker;

// This executable, for a calibration's pairs (each runs in a fresh copy of this worker): its
// path, so that the pairs' processes carry its name; /proc/self/exe when that cannot be read
// or the file was replaced since this process started.
std::string SelfPath() {
  std::error_code error;
  const std::string path = std::filesystem::read_symlink("/proc/self/exe", error).string();
  if (error || path.empty() || path.find(" (deleted)") != std::string::npos) return "/proc/self/exe";
  return path;
}

// The spare's wait: everything before it happened before main (the dynamic loading and static
// initialisers of LibTorch). Nothing here touches LibTorch: its thread pools start, and its
// thread settings are applied, in RunWorkerJob, exactly as in a cold worker. Reading stdin
// blocks without using CPU, so an idle spare adds nothing to its RLIMIT_CPU after loading.
int RunSpare(w::WorkerFlags flags, int rss_children, std::ostream& progress) {
  // --rss-children RSS children start loading too (torchscand asks for as many as its last
  // job used), forked here, on the main thread, before any LibTorch work (passes/peak_rss.h):
  // an rss job hands them its trials, so their LibTorch load is off its path; any other job
  // kills them before it starts.
  std::vector<torchscan::passes::RssTrial> waiting;
  if (!flags.rss_child_path.empty())
    for (int i = 0; i < rss_children; ++i)
      waiting.push_back(torchscan::passes::RssTrial::LaunchWaiting(flags.rss_child_path));
  flags.waiting_rss = &waiting;
  progress << w::kReadyLine << std::endl;
  const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  if (text.empty()) return w::kWorkerOk;  // dropped (the daemon stopped) before any job
  const std::optional<w::Handoff> handoff = w::ParseHandoff(text);
  if (!handoff) {
    std::cerr << "torchscan-worker: --spare: stdin did not hold a job handoff (\"job DIR\", \"stderr PATH\")"
              << std::endl;
    return w::kWorkerBadSpec;
  }
  const int err = ::open(handoff->stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (err < 0 || ::dup2(err, STDERR_FILENO) < 0 || ::dup2(err, STDOUT_FILENO) < 0) {
    std::cerr << "torchscan-worker: --spare: cannot write the job's stderr file " << handoff->stderr_path << ": "
              << std::strerror(errno) << std::endl;
    return w::kWorkerResultNotWritten;
  }
  ::close(err);
  flags.job_dir = handoff->job_dir;
  return w::RunWorkerJob(flags, progress, std::cerr);
}

// A sandboxed worker is process 1 of its job's PID namespace (process/sandbox.h), which the
// kernel spares every signal it has no handler for, from itself too: abort() would end it as a
// SIGSEGV, and RLIMIT_CPU's SIGXCPU not at all (its SIGKILL 5 s later would). Each is said on stderr (the job's error
// quotes the last line) and ends it with the shell's 128 + signal.
void EndOnSignal(int signal) {
  const char* line = signal == SIGXCPU ? "torchscan-worker: SIGXCPU: worker_cpu_time_s reached\n"
                                       : "torchscan-worker: SIGABRT: aborted\n";
  (void)!::write(STDERR_FILENO, line, std::strlen(line));
  ::_exit(128 + signal);
}

}  // namespace

int main(int argc, char** argv) {
  // No process outside the job reads this one's memory, or its files through
  // /proc/<pid>/root, even as the same user (issue 41: a job on another daemon read a running
  // job's upload that way): not dumpable, from here on, with LibTorch loaded. Its RSS and
  // instruction children and its fresh copies are programs of their own (an exec makes them
  // dumpable again), and /proc/self stays its own to read.
  ::prctl(PR_SET_DUMPABLE, 0);
  if (::getpid() == 1)
    for (int signal : {SIGABRT, SIGXCPU}) ::signal(signal, EndOnSignal);
  // A file past torchscand's RLIMIT_FSIZE (a module printing without end) fails its write
  // (EFBIG) rather than ending the job.
  ::signal(SIGXFSZ, SIG_IGN);
  // One malloc placement for every build of a module: glibc's mmap threshold starts at 128 KiB
  // and rises to the size of each mmapped block freed, so a job's first-built module had its
  // weights mmapped and the next one, built after the loader freed its buffers, on the heap.
  // Fixed at 32 MiB (where glibc's own rise stops, and where a long-running PyTorch process
  // settles), blocks up to 32 MiB come from the heap in every build. Measured (issue 40,
  // validity_benchmark --file-layers 100, byte-identical copies, 8.2 ms a call): the job's
  // first build pair read the candidate 2.9 % slower (median of 15 jobs) and later pairs
  // 0.57 % faster (15 of 15 jobs below 1); with the threshold fixed, -0.6 % and -0.1 % (8 jobs).
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  w::WorkerFlags flags;
  bool spare = false;
  CLI::App app{"torchscan-worker: runs one TorchScan job (started by torchscand)"};
  CLI::Option* job = app.add_option("--job", flags.job_dir,
                                    std::string("job folder holding ") + w::kJobSpecFile + " (or " +
                                        w::kJobSpecJsonFile + "); " + w::kJobResultFile + " is written there");
  CLI::Option* spare_flag = app.add_flag(
      "--spare", spare, "wait, loaded, for the job folder torchscand hands over on stdin (instead of --job)");
  job->excludes(spare_flag);
  app.add_option("--rss-child", flags.rss_child_path, "torchscan_rss_child path (jobs with rss)");
  int rss_children = 0;
  app.add_option("--rss-children", rss_children,
                 "with --spare: RSS children to start now, waiting for the job's RSS trials (default 0)")
      ->check(CLI::Range(0, 8));
  std::vector<std::string> rss_waiting;
  CLI::Option* waiting_flag =
      app.add_option("--rss-waiting", rss_waiting,
                     "with --job: SOCKET_FD:STDERR_FD of an RSS child torchscand started with this worker (repeated; "
                     "worker_protocol.h)")
          ->check([](const std::string& text) {
            return w::ParseRssWaitingFds(text) ? std::string() : "expected SOCKET_FD:STDERR_FD, two descriptor numbers";
          });
  waiting_flag->excludes(spare_flag);
  flags.self_path = SelfPath();
  try {
    app.parse(argc, argv);
    if (!spare && flags.job_dir.empty()) throw CLI::RequiredError("--job (or --spare)");
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : w::kWorkerBadSpec;
  }
  // The progress channel (worker_protocol.h) is the pipe torchscand gave as stdout, kept on a
  // descriptor of its own; fd 1 then writes where stderr does, so that what a module prints
  // (TorchScript's print goes to std::cout) lands in the job's stderr file and cannot forge a
  // phase line (issue 41: 13,415 printed phases made a 0.05 s measure take 116 s). A spare
  // points fd 1 at its job's stderr file at the handoff, as it does fd 2.
  const int progress_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (progress_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::cerr << "torchscan-worker: cannot move the progress channel off stdout: " << std::strerror(errno) << std::endl;
    return w::kWorkerResultNotWritten;
  }
  __gnu_cxx::stdio_filebuf<char> progress_buffer(progress_fd, std::ios::out);
  std::ostream progress(&progress_buffer);
  // Adopted before anything else: their sockets hold each child's pid line (worker_protocol.h).
  std::vector<torchscan::passes::RssTrial> waiting;
  for (const std::string& text : rss_waiting) {
    const w::RssWaitingFds fds = *w::ParseRssWaitingFds(text);
    waiting.push_back(torchscan::passes::RssTrial::AdoptWaiting(fds.socket_fd, fds.stderr_fd));
  }
  if (!waiting.empty()) flags.waiting_rss = &waiting;
  const int code = spare ? RunSpare(flags, rss_children, progress) : w::RunWorkerJob(flags, progress, std::cerr);
  // Ends here, without running static destructors: the result is on disk (fsynced) and every
  // RSS child reaped, and LibTorch's teardown (its thread pools, registries and freed
  // allocations) only delayed the job's end: 64 ms between the result's rename and
  // exit_group, measured with strace on the guide's linear comparison (issue 15 item 5).
  progress.flush();
  std::cout.flush();
  std::cerr.flush();
  std::_Exit(code);
}
