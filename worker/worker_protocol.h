// The contract between torchscand and torchscan-worker: the worker's command line, its
// progress lines on stdout and its exit codes. Pure (no gRPC, no LibTorch, no I/O).
//
// Command line:  torchscan-worker --job JOB_DIR [--rss-child PATH]
//   reads JOB_DIR/spec.binpb or spec.json (a JobSpec: worker/job_spec_file.h), writes JOB_DIR/result.json (a
//   JobResult) atomically, and exits with one of the codes below; on failure the last line
//   of stderr says why ("torchscan-worker: <message naming the field or step>").
//
// Progress lines on stdout, one per line, in this order of a run:
//   phase <text>   a step began: "rss baseline", "rss candidate" (RSS children, started at
//                  once before the builds), "build baseline", "wait for rss", "timing
//                  baseline", "profile candidate", "memory ...", "check", "write result"
//   blocks <n>     n >= 0 timed blocks are done in the current timing phase (throttled: at
//                  most about 10 lines a second)
//   done           result.json is written; the worker exits 0 next
// Other lines are not part of the protocol: readers ignore them.
//
// A warm spare:  torchscan-worker --spare [--rss-child PATH]
//   started ahead of its job with the same launch settings as a job's worker (limits, user,
//   CPU set, environment). Its libraries, LibTorch above all, load and initialise before main;
//   it then prints "ready" and reads its job from stdin until end of file: the handoff
//   (FormatHandoff). It touches no LibTorch setting before that: the job's thread counts are
//   applied afterwards, as in a cold worker. It then sends its stderr to the handoff's file
//   and runs the job as `--job JOB_DIR` does (same lines, same exit codes). End of file
//   without a job (the daemon dropped the spare or stopped): it exits 0 at once.
//
// RSS children started with a cold worker:  ... --rss-waiting SOCKET_FD:STDERR_FD (repeated)
//   a job with rss on a cold worker: the launcher (daemon/worker_launcher.h, with
//   WaitingRssChildren below as its early children, process/pre_exec.h) forks one
//   `torchscan_rss_child --wait` per RSS trial in the worker's process after its set-up and
//   before its exec, so that their LibTorch loads overlap the worker's.
//   They are the worker's own children (it reaps them; they die with its main thread), in its
//   process group, with its user, limits and CPU set. Each is named by two inherited fds: the
//   worker's end of a socket that is the child's stdin and stdout, which holds first a line
//   with the child's pid in decimal (0: it could not be forked; process/pid_line.h), written
//   before the worker's exec, then, once the worker sent its trial, the child's result line; and an anonymous
//   file that is the child's stderr (passes/peak_rss.h, RssTrial::AdoptWaiting).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "process/pre_exec.h"
#include "proto/service.pb.h"

// (Namespace torchscan::daemon kept from when the worker lived in daemon/.)
namespace torchscan::worker {

// Exit codes of torchscan-worker.
enum WorkerExitCode : int {
  kWorkerOk = 0,
  kWorkerInternalError = 1,     // an unexpected exception: a bug
  kWorkerBadSpec = 2,           // bad flags, spec unreadable / invalid / unsupported
  kWorkerWorkloadError = 3,     // the workload could not be built, timed, profiled or checked
  kWorkerOutOfMemory = 4,       // LibTorch or the allocator ran out of memory (RESOURCE_EXHAUSTED)
  kWorkerResultNotWritten = 5,  // result.json could not be written
  // Used by the launcher in the forked child when setting affinity or limits failed before
  // exec (the worker never started).
  kWorkerLaunchSetupFailed = 120,
};

// A short name of an exit code ("bad spec", "workload error" ...); "unknown exit code" else.
std::string DescribeWorkerExit(int exit_code);

std::string FormatPhaseLine(std::string_view phase);  // "phase <phase>" (newlines become spaces)
std::string FormatBlocksLine(int64_t blocks_done);    // "blocks <n>"
inline constexpr const char* kDoneLine = "done";
inline constexpr const char* kReadyLine = "ready";  // a spare has loaded and waits for its job

struct WorkerLine {
  enum class Kind { kPhase, kBlocks, kDone, kReady };
  Kind kind = Kind::kPhase;
  std::string phase;   // kPhase
  int64_t blocks = 0;  // kBlocks
};

// Parses one line (without its newline; a trailing '\r' is ignored). nullopt for lines
// outside the protocol: unknown words, "blocks" without a non-negative integer, "phase"
// without text.
std::optional<WorkerLine> ParseWorkerLine(std::string_view line);

// A spare's job, as the daemon writes it to the spare's stdin: "job <JOB_DIR>\nstderr <PATH>\n".
struct Handoff {
  std::string job_dir;      // as --job
  std::string stderr_path;  // the worker's stderr from then on (created or truncated)
};
std::string FormatHandoff(const Handoff& handoff);
// nullopt unless `text` is exactly the two lines FormatHandoff writes, with non-empty paths
// free of newlines.
std::optional<Handoff> ParseHandoff(std::string_view text);

// One --rss-waiting value: "SOCKET_FD:STDERR_FD".
struct RssWaitingFds {
  int socket_fd = -1;
  int stderr_fd = -1;
};
std::string FormatRssWaitingFds(const RssWaitingFds& fds);
// nullopt unless `text` is two non-negative integers joined by ':'.
std::optional<RssWaitingFds> ParseRssWaitingFds(std::string_view text);

// What the daemon hands a worker without knowing what it is. The worker's helper programs
// (its RSS child) and the children it wants started with it are decided here, next to the
// flags that read them; the daemon only passes them on.

// The worker's helper programs, from the daemon's configuration.
struct HelperPrograms {
  std::string rss_child_path;  // torchscan_rss_child; empty: none (jobs with rss are refused)
};

// Arguments every worker launch (a job's or a spare's) carries: {"--rss-child", PATH}, or none.
std::vector<std::string> HelperProgramArgs(const HelperPrograms& helpers);

// How many children a job's worker wants started with it: one per RSS trial (one per run with
// rss: a comparison has two, a measurement one), else none.
int EarlyChildCount(const v1::JobSpec& spec);

// The children to start with a cold worker of `spec` (WorkerLaunch.early_children):
// WaitingRssChildren(helpers.rss_child_path, EarlyChildCount(spec)).
process::EarlyChildren EarlyChildrenOf(const v1::JobSpec& spec, const HelperPrograms& helpers);

// The early children (process/pre_exec.h) of a cold worker with `count` RSS trials: `count`
// times `rss_child_path --wait`, each named to the worker by "--rss-waiting SOCKET_FD:STDERR_FD";
// one whose exec fails says "torchscan launcher: cannot execute the RSS child (rss_child_path)"
// on its stderr. None for count <= 0 or an empty `rss_child_path`.
process::EarlyChildren WaitingRssChildren(const std::string& rss_child_path, int count);

// A spare's arguments after "--spare" and HelperProgramArgs: prepare `count` (< 0: 0) early
// children for its coming job, as EarlyChildCount of the job before it.
std::vector<std::string> SpareArgs(int count);

// How a progress phase sits on the job's timeline (daemon/job_phases.h):
enum class PhaseKind {
  kOwn,         // the worker's own step; ends the step before it
  kConcurrent,  // runs beside the worker's steps: "rss <run>" (an RSS child was handed its trial)
  kJoin,        // "wait for rss": the worker joins every concurrent child; the phase after it
                // ends their spans
  kTimed,       // "warm-up ..." or "timing ...": nothing runs beside it, so it ends them too
};
PhaseKind ClassifyPhase(std::string_view phase);
// The concurrent span of `count` early children started with the worker: "rss children (N
// started with the worker)".
std::string EarlyChildrenSpan(int count);

}  // namespace torchscan::worker
