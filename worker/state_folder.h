// The names of the files and folders torchscand, torchscan-worker and torchscan-client's
// private daemon create: the on-disk contract between them, stated once. A state folder
// (DaemonConfig.state_dir) holds
//
//   torchscand.lock        locked (flock) by the torchscand that uses the folder; a second
//                          one refuses to start on it (daemon/job_store.h)
//   torchscand.sock        the default listen address, unix:<state_dir>/torchscand.sock
//                          (daemon/config.h), when the configuration names none
//   noise_floor.json       the latest calibrate job's NoiseFloor (proto/report.proto),
//                          written atomically by the daemon, read at its start
//   noise_floors/<node>.json  a Slurm front's: the latest calibrate job's on each node
//   slurm/                 a Slurm front's: node-config.json (what the nodes run with) and
//     job-000001/          per job node.log (the node-side program's output) and
//                          node-outcome.txt (how the job ended there), out of the worker's reach
//   spare-worker.stderr    the warm spare worker's stderr until it has a job (then its
//                          job's worker.stderr): why a spare failed to start or load
//   jobs/                  one folder per job, named by its id: "job-" and at least six
//     job-000001/          digits, zero-padded, so that names sort in submission order
//       job.json           the Job record, rewritten by the daemon at each state change
//       spec.binpb         the JobSpec in protobuf's binary encoding, uploaded files included:
//                          written by the daemon at submission, read by the worker
//                          (worker/job_spec_file.h; a folder may hold spec.json instead: a
//                          job file by hand or from deploy/slurm, or an older daemon's job)
//       result.json        the JobResult, written by the worker, read by the daemon
//       worker.stderr      what the worker wrote to stderr (its last lines name a failure)
//
// A client without --daemon starts a private daemon in a fresh /tmp/torchscan-client-XXXXXX/
// holding torchscand.sock, torchscand.log (the daemon's stderr) and state/ (its state folder).
//
// Nothing else is written there. Renaming a constant moves files that daemons of the
// previous version wrote: their jobs would be skipped at start-up. Tests spell these names
// as literals, so that such a rename fails them.
//
// Plain constexpr values: no dependencies, no LibTorch, no gRPC (the worker includes it).
#pragma once

namespace torchscan::worker {

// ---------------------------------------------------------------- the state folder
inline constexpr char kStateLockFile[] = "torchscand.lock";
inline constexpr char kStateSocketFile[] = "torchscand.sock";
inline constexpr char kStateJobsFolder[] = "jobs";
inline constexpr char kNoiseFloorFile[] = "noise_floor.json";
// A Slurm front's per-node noise floors: <state_dir>/noise_floors/<node>.json.
inline constexpr char kNodeNoiseFloorFolder[] = "noise_floors";
// A Slurm front's per-job files, out of the worker's reach: <state_dir>/slurm/<job id>/
// holding node.log (the node-side program's output: the worker's progress lines, and
// Slurm's messages) and node-outcome.txt (how the job ended on the node; its last write).
// <state_dir>/slurm/node-config.json: the configuration the node-side program runs with.
inline constexpr char kSlurmFolder[] = "slurm";
inline constexpr char kNodeLogFile[] = "node.log";
inline constexpr char kNodeOutcomeFile[] = "node-outcome.txt";
inline constexpr char kNodeConfigFile[] = "node-config.json";
inline constexpr char kSpareWorkerStderrFile[] = "spare-worker.stderr";
// A sandboxed spare's own job folder: the only writable folder it sees. The daemon copies its
// job's spec file in at the handoff and moves the result and stderr out afterwards.
inline constexpr char kSpareJobFolder[] = "spare-job";

// ---------------------------------------------------------------- a job's folder
// Its name: kJobIdPrefix followed by the number, zero-padded to at least kJobIdDigits.
inline constexpr char kJobIdPrefix[] = "job-";
inline constexpr int kJobIdDigits = 6;
inline constexpr char kJobRecordFile[] = "job.json";
inline constexpr char kJobSpecFile[] = "spec.binpb";
inline constexpr char kJobSpecJsonFile[] = "spec.json";
inline constexpr char kJobResultFile[] = "result.json";
inline constexpr char kWorkerStderrFile[] = "worker.stderr";

// ---------------------------------------------------------------- a client's private daemon
inline constexpr char kPrivateDaemonFolderTemplate[] = "/tmp/torchscan-client-XXXXXX";  // for mkdtemp
inline constexpr char kPrivateDaemonLogFile[] = "torchscand.log";
inline constexpr char kPrivateDaemonStateFolder[] = "state";

}  // namespace torchscan::worker
