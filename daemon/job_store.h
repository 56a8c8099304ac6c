// The daemon's persistent state: one folder per job under <state_dir>/jobs/<id>/ holding
//   job.json        the Job record (JSON mapping), rewritten at each state change; its spec
//                   without the bytes of uploaded files
//   spec.binpb      the JobSpec given to the worker, uploaded files included, in protobuf's
//                   binary encoding (written at submission; worker/job_spec_file.h, which
//                   also reads an older daemon's spec.json)
//   result.json     the JobResult, written by the worker
//   worker.stderr   what the worker wrote to stderr
// and <state_dir>/noise_floor.json, the latest calibration's noise floor
// (the names: worker/state_folder.h, the folder layout's contract), and
// <state_dir>/jobs.cache, finished records in binary protobuf, each with the identity of the
// job.json it was read from or written as (daemon/job_cache.h): a start takes a record from
// it while its job.json is unchanged, instead of parsing the JSON. Only a speed-up: a
// missing, stale, damaged or other-schema cache costs parsing time, never a record.
// Every file is written atomically (temporary file, fsync, rename), so a reader or a
// restart after kill -9 sees the old or the new file, never a torn one; a write that fails
// (a full disk) leaves the old file whole. The store deletes only what a refused submission
// left behind (DiscardRefused). gRPC-free.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/job_cache.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

// The key of the noise floor of `device` ("cpu", "cuda:N") on `node` ("": this machine):
// `node` for the CPU, "<node>@cuda_N" for a GPU (a file name: no ':').
std::string NoiseFloorKey(const std::string& node, const std::string& device);

class JobStore {
 public:
  explicit JobStore(std::string state_dir);
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  // Creates <state_dir> and <state_dir>/jobs (mode 0711: passed through, not listed), closes
  // job folders to all but the daemon (0700; their files are written 0600), and takes
  // an exclusive lock on <state_dir>/torchscand.lock for the life of this object.
  // Internal/PermissionDenied naming the path when a folder cannot be made; FailedPrecondition
  // when another process holds the lock (another torchscand uses this state_dir).
  absl::Status Open();

  struct Loaded {
    std::vector<v1::Job> jobs;             // every readable record, in submission (id) order
    std::vector<std::string> problems;     // one line per record that was skipped or not rewritten
    int64_t last_number = 0;               // the largest job number seen (folders included)
    std::vector<std::string> interrupted;  // ids of the jobs found running and now interrupted
    std::vector<std::string> summarized;   // ids of the jobs given their summary at this load
    int from_cache = 0;                    // records taken from jobs.cache
    int from_json = 0;                     // records read from their job.json (those skipped as unreadable included)
  };
  // Reads every job record. Restart semantics (restart_rules.h): a job found `running` becomes
  // `interrupted` (error: the daemon stopped while it ran; finished_at = `now`; worker_pid
  // cleared) and is rewritten; queued jobs keep their state. A succeeded measure or compare job without a
  // summary (finished by an older daemon) gets one from its result.json (result_summary.h)
  // and is rewritten; a result that cannot be read leaves it without one, reported in
  // `problems` (tried again at the next load). Jobs that have a summary are not looked at
  // further. A missing, corrupt or mismatching job.json is reported in `problems` and
  // skipped; it never fails the load.
  // Speed: a record whose job.json has the identity jobs.cache holds for it is taken from the
  // cache and goes through the same checks and restart rules as a parsed one. An unreadable
  // or damaged cache is reported in `problems` (one line) and ignored; one of another schema
  // is ignored silently. When any finished record was parsed, or the cache held others, the
  // cache is rewritten (SaveCache) from the finished jobs loaded; its failure is a problem.
  // `slurm_front`: the daemon is a Slurm front (its jobs in Slurm stay running).
  Loaded LoadAll(const std::string& now, bool slurm_front = false);

  // Rewrites jobs.cache atomically: the finished records stored (SaveJob) since it was last
  // written, and the old cache's entries whose job.json is unchanged since. Does nothing when
  // no finished record was stored since the cache was last written or loaded whole. Holds no
  // record beyond that: its memory is the old cache's while it runs. Internal/PermissionDenied
  // naming the path on failure; the old cache then stays whole and the records stored since
  // go into the next one. Before LoadAll it does nothing (a store that never loaded, such as
  // one refused the lock, knows no record). The daemon calls it at shutdown and, at most
  // every few minutes, after a job finishes.
  absl::Status SaveCache();

  // "job-000042" for 42: ids sort in submission order.
  static std::string JobId(int64_t number);
  // The number of a well-formed id, or -1.
  static int64_t JobNumber(const std::string& id);

  // Writes the record to jobs/<id>/job.json atomically (the folder is created on first use);
  // a finished one is remembered (its file's identity and its bytes) for SaveCache.
  absl::Status SaveJob(const v1::Job& job);
  // Job `id`'s record as its job.json holds it now (the daemon reads a finished record again
  // this way once it no longer keeps it in memory): from jobs.cache (one read of its bytes,
  // about 20 us) when its entry there is still its job.json's, else parsed from the JSON
  // (about 0.2 ms). DataLoss naming the file when it is missing, unreadable, damaged or
  // another job's.
  absl::StatusOr<v1::Job> LoadJob(const std::string& id) const;
  // Writes jobs/<id>/spec.binpb atomically.
  absl::Status WriteSpec(const std::string& id, const v1::JobSpec& spec);
  // Removes what storing a refused submission left: jobs/<id>/spec.binpb and the folder, when
  // the folder holds nothing else (no job.json: the job was never recorded). Internal naming
  // the path when something stays.
  absl::Status DiscardRefused(const std::string& id);
  // Bytes still free for writing in state_dir's filesystem (statvfs f_bavail x f_frsize);
  // -1 when statvfs fails.
  int64_t FreeBytes() const;
  // Whether jobs/<id> holds a spec file (written at submission; a job queued by a much older
  // daemon has only its record, which then holds the whole spec).
  bool HasSpec(const std::string& id) const;
  // While a job's worker runs as another user (`uid`, `gid`), it owns the job's folder and
  // spec file: it reads the spec and writes its result there. Internal naming the path.
  absl::Status GiveToWorker(const std::string& id, int uid, int gid);
  // After the worker ended (nothing of it runs any more): the folder is the daemon's again
  // (owner, mode 0700), before anything in it is read. A link (symbolic or hard), pipe or
  // device the worker left is removed, never followed; regular files become the daemon's, mode 0600; folders stay
  // (nothing reads into them, and the folder above is closed). Internal naming the path.
  absl::Status TakeBack(const std::string& id);
  // A sandboxed spare's job: its spec file copied into the spare's own `folder` (owned by
  // `uid`/`gid` when >= 0) at the handoff; afterwards the folder taken back as above, its
  // result.json and worker.stderr moved into the job's folder, and the folder removed.
  // Internal naming the path.
  absl::Status CopySpecInto(const std::string& id, const std::string& folder, int uid, int gid) const;
  absl::Status MoveResultFrom(const std::string& folder, const std::string& id);
  // Strictly parses jobs/<id>/result.json and checks the report or comparison it holds
  // (report/validate.h). NotFound when absent; DataLoss naming the file when unreadable,
  // corrupt or empty.
  absl::StatusOr<v1::JobResult> LoadResult(const std::string& id) const;
  // Rewrites jobs/<id>/result.json atomically (the daemon adds the noise floor to a result);
  // on failure the worker's file stays whole.
  absl::Status SaveResult(const std::string& id, const v1::JobResult& result);

  // The latest calibration's noise floor of each machine and device, by NoiseFloorKey:
  // "" (this machine's CPU) in <state_dir>/noise_floor.json, any other key (a Slurm node's,
  // a GPU's) in <state_dir>/noise_floors/<key>.json. Load: NotFound when there is none;
  // DataLoss naming the file when it is unreadable or damaged (the daemon logs it and goes
  // on without one). Save: atomic; on failure the old file stays whole; InvalidArgument for
  // a key that is not a plain node name and device.
  absl::StatusOr<v1::NoiseFloor> LoadNoiseFloor(const std::string& key = "") const;
  absl::Status SaveNoiseFloor(const v1::NoiseFloor& floor, const std::string& key = "");
  // The keys that have a file in noise_floors/, sorted.
  std::vector<std::string> NoiseFloorKeys() const;

  std::string JobDir(const std::string& id) const;
  std::string ResultPath(const std::string& id) const;
  std::string StderrPath(const std::string& id) const;
  const std::string& state_dir() const { return state_dir_; }

 private:
  // A succeeded job's summary from its result.json, stored with its record (LoadAll). True when
  // the job got one (its record was rewritten, or its write failed and is in loaded.problems).
  bool AddSummary(v1::Job& job, Loaded& loaded);
  // LoadAll's steps. The ids of the job folders, in submission order (last_number and the
  // folders that are not a job's go to `loaded`).
  std::vector<std::string> ListJobFolders(Loaded& loaded) const;
  // jobs.cache's records; none when it is missing or unreadable (`stale` set, reported).
  std::map<std::string, CachedRecord> ReadCache(Loaded& loaded, bool* stale);
  // jobs.cache as just read or written, with its entries' places: LoadJob reads from it.
  void UseCacheFile(std::map<std::string, CacheSpan> spans);
  // Job `id`'s record from jobs.cache; false when it has no current entry or the read fails.
  bool ReadFromCacheFile(const std::string& id, v1::Job* job) const;
  // Job `id`'s record from `cache` when its job.json is unchanged, else parsed; false (reported)
  // when it is unreadable or not job `id`'s. `identity`: its job.json's before the read.
  bool ReadRecord(const std::string& id, const std::map<std::string, CachedRecord>& cache, Loaded& loaded, v1::Job* job,
                  std::optional<RecordIdentity>* identity, bool* from_cache);
  // Remembers a finished job as its job.json with `identity` holds it; `stored_now`: just
  // written (SaveJob), so its bytes go into the next cache (SaveCache).
  void Remember(const v1::Job& job, const RecordIdentity& identity, bool stored_now);
  // LoadAll's cache: every finished one of `jobs` that is remembered.
  absl::Status SaveCacheOf(const std::vector<v1::Job>& jobs);
  std::string CachePath() const;
  std::string NoiseFloorPath(const std::string& key) const;

  std::string state_dir_;
  int lock_fd_ = -1;
  bool loaded_ = false;               // LoadAll ran
  mutable std::mutex remembered_mu_;  // guards everything below
  // A record was remembered since jobs.cache was last written (or the loaded one is stale).
  bool remembered_since_save_ = false;
  std::map<std::string, RecordIdentity> remembered_;  // finished jobs by id: their job.json's identity
  std::map<std::string, CachedRecord> pending_;       // finished records stored since jobs.cache was written
  int cache_fd_ = -1;                                 // jobs.cache as last read or written
  std::map<std::string, CacheSpan> cache_spans_;      // its entries' places
};

}  // namespace torchscan::daemon
