#include "daemon/job_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

#include "daemon/restart_rules.h"
#include "daemon/result_summary.h"
#include "io/file_io.h"
#include "io/proto_json.h"
#include "report/report_json.h"
#include "report/validate.h"
#include "worker/job_spec_file.h"
#include "worker/state_folder.h"

namespace torchscan::daemon {
namespace {

namespace fs = std::filesystem;

// Job folders and their files are the daemon's alone (a job's worker gets its own folder while
// it runs: GiveToWorker); the state folder and jobs/ can be passed through but not listed, so
// that clients reach the socket and an unsandboxed worker its own folder.
constexpr int kPrivateFileMode = 0600;
constexpr int kJobFolderMode = 0700;
constexpr int kPassThroughMode = 0711;

absl::Status MakeDir(const std::string& path, int mode) {
  if (::mkdir(path.c_str(), static_cast<mode_t>(mode)) == 0 || errno == EEXIST) {
    std::error_code error;
    if (fs::is_directory(path, error) && ::chmod(path.c_str(), static_cast<mode_t>(mode)) == 0) return absl::OkStatus();
    if (fs::is_directory(path, error))
      return absl::PermissionDeniedError(absl::StrCat("cannot set the mode of ", path, ": ", std::strerror(errno)));
    return absl::FailedPreconditionError(absl::StrCat(path, " exists and is not a folder"));
  }
  const std::string message = absl::StrCat("cannot create folder ", path, ": ", std::strerror(errno));
  if (errno == EACCES || errno == EPERM) return absl::PermissionDeniedError(message);
  return absl::InternalError(message);
}

// JobStore::TakeBack of any folder (a job's, a spare's own).
absl::Status TakeBackFolder(const std::string& dir) {
  // First the folder: from then on nobody but the daemon adds or swaps entries in it.
  if (::lchown(dir.c_str(), ::geteuid(), ::getegid()) != 0 || ::chmod(dir.c_str(), kJobFolderMode) != 0)
    return absl::InternalError(absl::StrCat("cannot take back ", dir, ": ", std::strerror(errno)));
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string path = entry.path().string();
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) continue;  // nothing reads into one; the folder above is closed now
    // A link (symbolic, or a second name of a file elsewhere) is removed itself, never
    // followed or changed.
    if (!S_ISREG(st.st_mode) || st.st_nlink > 1) {
      ::unlink(path.c_str());
      continue;
    }
    if (::lchown(path.c_str(), ::geteuid(), ::getegid()) != 0 || ::chmod(path.c_str(), kPrivateFileMode) != 0)
      return absl::InternalError(absl::StrCat("cannot take back ", path, ": ", std::strerror(errno)));
  }
  if (error) return absl::InternalError(absl::StrCat("cannot list ", dir, ": ", error.message()));
  return absl::OkStatus();
}

}  // namespace

JobStore::JobStore(std::string state_dir) : state_dir_(std::move(state_dir)) {}

JobStore::~JobStore() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
  if (cache_fd_ >= 0) ::close(cache_fd_);
}

absl::Status JobStore::Open() {
  std::error_code error;
  fs::create_directories(state_dir_, error);  // parents; the checks below name what failed
  if (absl::Status s = MakeDir(state_dir_, kPassThroughMode); !s.ok()) return s;
  if (absl::Status s = MakeDir((fs::path(state_dir_) / worker::kStateJobsFolder).string(), kPassThroughMode); !s.ok())
    return s;
  // Job folders an older daemon made open to all (0755) are closed now.
  for (const fs::directory_entry& entry :
       fs::directory_iterator(fs::path(state_dir_) / worker::kStateJobsFolder, error))
    if (JobNumber(entry.path().filename().string()) >= 0 && entry.is_directory(error))
      ::chmod(entry.path().c_str(), kJobFolderMode);
  const std::string lock_path = (fs::path(state_dir_) / worker::kStateLockFile).string();
  lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) return absl::InternalError(absl::StrCat("cannot open ", lock_path, ": ", std::strerror(errno)));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return absl::FailedPreconditionError(absl::StrCat("state_dir ", state_dir_, " is in use by another torchscand (",
                                                      lock_path, " is locked); stop it or choose another state_dir"));
  }
  return absl::OkStatus();
}

std::string JobStore::JobId(int64_t number) {
  return absl::StrFormat("%s%0*d", worker::kJobIdPrefix, worker::kJobIdDigits, number);
}

int64_t JobStore::JobNumber(const std::string& id) {
  absl::string_view digits = id;
  int64_t number = -1;
  if (!absl::ConsumePrefix(&digits, worker::kJobIdPrefix) ||
      digits.size() < static_cast<size_t>(worker::kJobIdDigits) ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      !absl::SimpleAtoi(digits, &number))
    return -1;
  return number;
}

std::string JobStore::JobDir(const std::string& id) const {
  return (fs::path(state_dir_) / worker::kStateJobsFolder / id).string();
}
std::string JobStore::ResultPath(const std::string& id) const { return JobDir(id) + "/" + worker::kJobResultFile; }
std::string JobStore::StderrPath(const std::string& id) const { return JobDir(id) + "/" + worker::kWorkerStderrFile; }

bool JobStore::AddSummary(v1::Job& job, Loaded& loaded) {
  const absl::StatusOr<v1::JobResult> result = LoadResult(job.id());
  if (!result.ok()) {
    loaded.problems.push_back(absl::StrCat(job.id(), ": succeeded, but its history summary cannot be made: ",
                                           result.status().message(), "; it stays out of its benchmark's history"));
    return false;
  }
  const std::optional<v1::ResultSummary> summary = SummaryOfResult(*result);
  if (!summary) return false;
  *job.mutable_summary() = *summary;
  loaded.summarized.push_back(job.id());
  if (absl::Status s = SaveJob(job); !s.ok())
    loaded.problems.push_back(absl::StrCat(
        job.id(), ": its history summary could not be stored (made again at the next start): ", s.message()));
  return true;
}

std::vector<std::string> JobStore::ListJobFolders(Loaded& loaded) const {
  std::vector<std::pair<int64_t, std::string>> ids;
  std::error_code error;
  for (fs::directory_iterator it(fs::path(state_dir_) / worker::kStateJobsFolder, error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    const int64_t number = JobNumber(name);
    if (number < 0) {
      loaded.problems.push_back(
          absl::StrCat(it->path().string(), ": not a job folder (", worker::kJobIdPrefix, "NNNNNN); ignored"));
      continue;
    }
    loaded.last_number = std::max(loaded.last_number, number);
    ids.emplace_back(number, name);
  }
  if (error)
    loaded.problems.push_back(
        absl::StrCat("cannot list ", state_dir_, "/", worker::kStateJobsFolder, ": ", error.message()));
  std::sort(ids.begin(), ids.end());
  std::vector<std::string> sorted;
  for (auto& [number, id] : ids) sorted.push_back(std::move(id));
  return sorted;
}

bool JobStore::ReadRecord(const std::string& id, const std::map<std::string, CachedRecord>& cache, Loaded& loaded,
                          v1::Job* job, std::optional<RecordIdentity>* identity, bool* from_cache) {
  const std::string path = JobDir(id) + "/" + worker::kJobRecordFile;
  // The identity before the read: a file replaced meanwhile is found changed at the next load.
  *identity = IdentityOf(path);
  const auto cached = cache.find(id);
  *from_cache = *identity && cached != cache.end() && cached->second.identity == **identity &&
                job->ParseFromString(cached->second.job);
  if (*from_cache) {
    ++loaded.from_cache;
  } else {
    ++loaded.from_json;
    if (absl::Status s = LoadJsonStrict(path, job); !s.ok()) {
      loaded.problems.push_back(absl::StrCat(s.message(), "; job skipped"));
      return false;
    }
  }
  if (job->id() != id) {
    loaded.problems.push_back(absl::StrCat(path, ": id \"", job->id(), "\" does not match its folder; job skipped"));
    return false;
  }
  return true;
}

JobStore::Loaded JobStore::LoadAll(const std::string& now, bool slurm_front) {
  Loaded loaded;
  const std::vector<std::string> ids = ListJobFolders(loaded);
  bool cache_stale = false;  // rewrite it after the load
  const std::map<std::string, CachedRecord> cache = ReadCache(loaded, &cache_stale);
  for (const std::string& id : ids) {
    v1::Job job;
    std::optional<RecordIdentity> identity;
    bool from_cache = false;
    if (!ReadRecord(id, cache, loaded, &job, &identity, &from_cache)) continue;
    bool rewritten = false;                           // interrupted or summarized: SaveJob remembered it
    if (InterruptIfRunning(job, now, slurm_front)) {  // the start-up rules: restart_rules.h
      rewritten = true;
      if (absl::Status s = SaveJob(job); !s.ok())
        loaded.problems.push_back(absl::StrCat(id, ": could not record the interruption: ", s.message()));
      loaded.interrupted.push_back(id);
    }
    ClearStaleQueuePosition(job);
    if (NeedsSummary(job)) rewritten = AddSummary(job, loaded) || rewritten;
    // An unchanged record is as its file holds it.
    if (identity && !rewritten && IsFinished(job.state())) Remember(job, *identity, false);
    if (IsFinished(job.state()) && (!from_cache || rewritten)) cache_stale = true;
    loaded.jobs.push_back(std::move(job));
  }
  loaded_ = true;
  {
    std::lock_guard<std::mutex> lock(remembered_mu_);
    remembered_since_save_ = cache_stale || loaded.from_cache != static_cast<int>(cache.size());
  }
  if (remembered_since_save_) {
    if (absl::Status s = SaveCacheOf(loaded.jobs); !s.ok())
      loaded.problems.push_back(absl::StrCat(s.message(), " (records are parsed from JSON at the next start)"));
  }
  return loaded;
}

absl::Status JobStore::SaveJob(const v1::Job& job) {
  if (JobNumber(job.id()) < 0)
    return absl::InvalidArgumentError(absl::StrCat("job id \"", job.id(), "\" is malformed"));
  if (absl::Status s = MakeDir(JobDir(job.id()), kJobFolderMode); !s.ok()) return s;
  const std::string path = JobDir(job.id()) + "/" + worker::kJobRecordFile;
  if (absl::Status s = SaveJson(job, path, kPrivateFileMode); !s.ok()) return s;
  if (IsFinished(job.state())) {
    if (const std::optional<RecordIdentity> identity = IdentityOf(path)) Remember(job, *identity, true);
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::Job> JobStore::LoadJob(const std::string& id) const {
  const std::string path = JobDir(id) + "/" + worker::kJobRecordFile;
  v1::Job job;
  if (ReadFromCacheFile(id, &job)) return job;
  job.Clear();
  if (absl::Status s = LoadJsonStrict(path, &job); !s.ok()) return absl::DataLossError(s.message());
  if (job.id() != id)
    return absl::DataLossError(absl::StrCat(path, ": id \"", job.id(), "\" does not match its folder"));
  return job;
}

absl::Status JobStore::WriteSpec(const std::string& id, const v1::JobSpec& spec) {
  if (absl::Status s = MakeDir(JobDir(id), kJobFolderMode); !s.ok()) return s;
  return worker::SaveJobSpec(spec, JobDir(id), kPrivateFileMode);
}

absl::Status JobStore::GiveToWorker(const std::string& id, int uid, int gid) {
  for (const std::string& path : {JobDir(id), worker::JobSpecPath(JobDir(id))})
    if (::lchown(path.c_str(), static_cast<uid_t>(uid), static_cast<gid_t>(gid)) != 0 && errno != ENOENT)
      return absl::InternalError(absl::StrCat("cannot give ", path, " to the worker's user: ", std::strerror(errno)));
  return absl::OkStatus();
}

absl::Status JobStore::TakeBack(const std::string& id) { return TakeBackFolder(JobDir(id)); }

absl::Status JobStore::CopySpecInto(const std::string& id, const std::string& folder, int uid, int gid) const {
  const std::string path = worker::JobSpecPath(JobDir(id));
  absl::StatusOr<std::string> spec = ReadFile(path);
  if (!spec.ok()) return absl::InternalError(spec.status().message());
  const std::string copy = folder + "/" + fs::path(path).filename().string();
  if (absl::Status s = WriteFileAtomic(copy, *spec, kPrivateFileMode); !s.ok()) return s;
  if (uid >= 0 && ::lchown(copy.c_str(), static_cast<uid_t>(uid), static_cast<gid_t>(gid)) != 0)
    return absl::InternalError(absl::StrCat("cannot give ", copy, " to the worker's user: ", std::strerror(errno)));
  return absl::OkStatus();
}

absl::Status JobStore::MoveResultFrom(const std::string& folder, const std::string& id) {
  if (absl::Status s = TakeBackFolder(folder); !s.ok()) return s;
  for (const char* name : {worker::kJobResultFile, worker::kWorkerStderrFile}) {
    const std::string from = folder + "/" + name;
    if (::rename(from.c_str(), (JobDir(id) + "/" + name).c_str()) != 0 && errno != ENOENT)
      return absl::InternalError(absl::StrCat("cannot move ", from, " into ", JobDir(id), ": ", std::strerror(errno)));
  }
  std::error_code error;
  fs::remove_all(folder, error);
  return absl::OkStatus();
}

absl::Status JobStore::DiscardRefused(const std::string& id) {
  if (JobNumber(id) < 0) return absl::InvalidArgumentError(absl::StrCat("job id \"", id, "\" is malformed"));
  const std::string spec = JobDir(id) + "/" + worker::kJobSpecFile;
  if (::unlink(spec.c_str()) != 0 && errno != ENOENT)
    return absl::InternalError(absl::StrCat("cannot remove ", spec, ": ", std::strerror(errno)));
  if (::rmdir(JobDir(id).c_str()) != 0 && errno != ENOENT)
    return absl::InternalError(absl::StrCat("cannot remove ", JobDir(id), ": ", std::strerror(errno)));
  return absl::OkStatus();
}

int64_t JobStore::FreeBytes() const {
  struct statvfs fs;
  if (::statvfs(state_dir_.c_str(), &fs) != 0) return -1;
  return static_cast<int64_t>(fs.f_bavail) * static_cast<int64_t>(fs.f_frsize);
}

bool JobStore::HasSpec(const std::string& id) const {
  std::error_code error;
  return fs::exists(worker::JobSpecPath(JobDir(id)), error);
}

absl::StatusOr<v1::JobResult> JobStore::LoadResult(const std::string& id) const {
  const std::string path = ResultPath(id);
  std::error_code error;
  if (!fs::exists(path, error)) return absl::NotFoundError(absl::StrCat(path, " does not exist"));
  v1::JobResult result;
  absl::Status s = LoadJsonStrict(path, &result);
  if (s.ok()) {
    if (result.has_report()) {
      s = report::ValidateReport(result.report(), report::kReportSchemaVersion, "report.");
    } else if (result.has_comparison()) {
      s = report::ValidateComparison(result.comparison(), report::kReportSchemaVersion);
    } else if (result.has_calibration()) {
      if (result.calibration().schema_version() != report::kReportSchemaVersion)
        s = absl::InvalidArgumentError(
            absl::StrCat("calibration.schema_version: ", result.calibration().schema_version(), " is not ",
                         report::kReportSchemaVersion));
    } else {
      s = absl::InvalidArgumentError("holds neither a report, a comparison nor a calibration");
    }
    if (!s.ok()) s = absl::InvalidArgumentError(absl::StrCat(path, ": ", s.message()));
  }
  if (!s.ok()) return absl::DataLossError(std::string(s.message()));
  return result;
}

absl::Status JobStore::SaveResult(const std::string& id, const v1::JobResult& result) {
  return SaveJson(result, ResultPath(id), kPrivateFileMode);
}

namespace {

// Slurm node names are host names: letters, digits, '-', '_' and '.' (not leading).
bool PlainNodeName(const std::string& node) {
  if (node.empty() || node[0] == '.') return false;
  return std::all_of(node.begin(), node.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// A noise floor's key (NoiseFloorKey): a plain node name or "", then "@cuda_N" for a GPU.
bool PlainFloorKey(const std::string& key) {
  const size_t at = key.find('@');
  const std::string node = key.substr(0, at);
  if (!node.empty() && !PlainNodeName(node)) return false;
  if (at == std::string::npos) return !node.empty();
  const std::string device = key.substr(at + 1);
  return device.size() > 5 && device.rfind("cuda_", 0) == 0 &&
         std::all_of(device.begin() + 5, device.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

std::string NoiseFloorKey(const std::string& node, const std::string& device) {
  if (device.empty() || device == "cpu") return node;
  std::string file_device = device;
  std::replace(file_device.begin(), file_device.end(), ':', '_');
  return node + "@" + file_device;
}

std::string JobStore::NoiseFloorPath(const std::string& key) const {
  if (key.empty()) return (fs::path(state_dir_) / worker::kNoiseFloorFile).string();
  return (fs::path(state_dir_) / worker::kNodeNoiseFloorFolder / (key + ".json")).string();
}

std::vector<std::string> JobStore::NoiseFloorKeys() const {
  std::vector<std::string> keys;
  std::error_code error;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(fs::path(state_dir_) / worker::kNodeNoiseFloorFolder, error)) {
    const fs::path name = entry.path().filename();
    if (name.extension() == ".json" && PlainFloorKey(name.stem().string())) keys.push_back(name.stem().string());
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

absl::StatusOr<v1::NoiseFloor> JobStore::LoadNoiseFloor(const std::string& key) const {
  if (!key.empty() && !PlainFloorKey(key)) return absl::NotFoundError("no noise floor for " + key);
  const std::string path = NoiseFloorPath(key);
  std::error_code error;
  if (!fs::exists(path, error)) return absl::NotFoundError(absl::StrCat(path, " does not exist"));
  v1::NoiseFloor floor;
  absl::Status s = LoadJsonStrict(path, &floor);
  if (s.ok() && floor.measured_at().empty())
    s = absl::InvalidArgumentError(absl::StrCat(path, ": measured_at is empty"));
  if (!s.ok()) return absl::DataLossError(std::string(s.message()));
  return floor;
}

absl::Status JobStore::SaveNoiseFloor(const v1::NoiseFloor& floor, const std::string& key) {
  if (!key.empty()) {
    if (!PlainFloorKey(key))
      return absl::InvalidArgumentError("noise floor \"" + key +
                                        "\" is not a plain host name and device; it is not stored");
    std::error_code error;
    fs::create_directories(fs::path(state_dir_) / worker::kNodeNoiseFloorFolder, error);
  }
  return SaveJson(floor, NoiseFloorPath(key), kPrivateFileMode);
}

}  // namespace torchscan::daemon
