#include "daemon/job_records.h"

#include <utility>

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "core/noise_floor.h"
#include "core/timestamp.h"
#include "daemon/restart_rules.h"
#include "daemon/slurm_config.h"

namespace torchscan::daemon {

JobRecords::JobRecords(const v1::DaemonConfig& config)
    : state_dir_(config.state_dir()),
      noise_floor_max_age_s_(config.noise_floor_max_age_s()),
      slurm_front_(IsSlurmFront(config)),
      store_(config.state_dir()) {}

absl::Status JobRecords::Load(const std::function<void(const v1::Job& job)>& requeue) {
  if (absl::Status s = store_.Open(); !s.ok()) return s;
  JobStore::Loaded loaded = store_.LoadAll(NowRfc3339(), slurm_front_);
  for (const std::string& problem : loaded.problems) spdlog::warn("start-up: {}", problem);
  for (const std::string& id : loaded.interrupted)
    spdlog::warn("job {} interrupted: it was running when the daemon stopped", id);
  if (!loaded.summarized.empty())  // once per job an older daemon finished: one line, not thousands
    spdlog::info("{} finished job(s) got their history summary from their results ({} to {})", loaded.summarized.size(),
                 loaded.summarized.front(), loaded.summarized.back());
  absl::MutexLock lock(&mu_);
  std::vector<std::string> keys = store_.NoiseFloorKeys();
  keys.insert(keys.begin(), "");
  for (const std::string& key : keys) {
    const std::string where = key.empty() ? "" : " of " + key;
    if (absl::StatusOr<v1::NoiseFloor> floor = store_.LoadNoiseFloor(key); floor.ok()) {
      spdlog::info("noise floor{} of {} (job {}) loaded", where, floor->measured_at(), floor->job_id());
      noise_floors_[key] = *std::move(floor);
    } else if (floor.status().code() != absl::StatusCode::kNotFound) {
      // Damaged: reported and left alone (the next calibration replaces it); never fatal.
      spdlog::warn("start-up: no noise floor{}: {}", where, std::string(floor.status().message()));
      loaded.problems.push_back(std::string(floor.status().message()));
    }
  }
  load_problems_ = std::move(loaded.problems);
  last_number_ = loaded.last_number;
  int queued = 0;
  for (v1::Job& job : loaded.jobs) {
    const bool unfinished = !IsFinished(job.state());
    if (unfinished) {
      requeue(job);
      ++queued;
    }
    const std::string id = job.id();
    history_.Add(job.spec().label(), id);
    states_[id] = job.state();
    if (unfinished) {
      // The previous daemon's clock readings are gone: a restored job's timeline starts now.
      BeginPhase(job, job.state() == v1::Job::queued ? "queue wait" : job.phase(), NowRfc3339());
      live_.emplace(id, std::move(job));
    } else {
      finished_.Keep(std::move(job));  // the newest stay kept
    }
  }
  spdlog::info("state_dir {}: {} jobs loaded ({} from the record cache, {} parsed), {} unfinished, {} kept in memory",
               state_dir_, states_.size(), loaded.from_cache, loaded.from_json, queued,
               live_.size() + finished_.size());
  return absl::OkStatus();
}

v1::Job* JobRecords::Lookup(const std::string& id) const {
  mu_.AssertHeld();
  if (auto it = live_.find(id); it != live_.end()) return const_cast<v1::Job*>(&it->second);
  if (states_.count(id) == 0) return nullptr;
  if (v1::Job* kept = finished_.Get(id)) return kept;
  absl::StatusOr<v1::Job> job = store_.LoadJob(id);
  if (!job.ok()) {
    spdlog::error("job {}: its record cannot be read again: {}", id, std::string(job.status().message()));
    return nullptr;
  }
  return finished_.Keep(*std::move(job));
}

v1::Job* JobRecords::Find(const std::string& id) { return Lookup(id); }

const v1::Job* JobRecords::Find(const std::string& id) const { return Lookup(id); }

const std::map<std::string, v1::Job::State>& JobRecords::states() const {
  mu_.AssertHeld();
  return states_;
}

size_t JobRecords::kept_finished() const {
  mu_.AssertHeld();
  return finished_.size();
}

const HistoryIndex& JobRecords::history() const {
  mu_.AssertHeld();
  return history_;
}

std::optional<v1::NoiseFloor> JobRecords::noise_floor(const std::string& node, const std::string& device) const {
  mu_.AssertHeld();
  auto it = noise_floors_.find(NoiseFloorKey(node, device));
  if (it == noise_floors_.end()) return std::nullopt;
  return it->second;
}

std::vector<v1::NoiseFloor> JobRecords::gpu_noise_floors() const {
  mu_.AssertHeld();
  std::vector<v1::NoiseFloor> floors;
  for (const auto& [key, floor] : noise_floors_)
    if (key.rfind('@', 0) == 0) floors.push_back(floor);
  return floors;
}

std::string JobRecords::NextId() const {
  mu_.AssertHeld();
  return JobStore::JobId(last_number_ + 1);
}

absl::Status JobRecords::StoreNew(v1::Job& job, const v1::JobSpec& spec) {
  mu_.AssertHeld();
  ++last_number_;
  BeginPhase(job, "queue wait", job.submitted_at());
  absl::Status stored = store_.WriteSpec(job.id(), spec);
  if (stored.ok()) stored = store_.SaveJob(job);
  if (absl::Status s = stored; !s.ok()) {
    phases_.erase(job.id());
    spdlog::error("job {}: could not be stored: {}", job.id(), std::string(s.message()));
    if (absl::Status discarded = store_.DiscardRefused(job.id()); !discarded.ok())
      spdlog::warn("job {}: {}", job.id(), std::string(discarded.message()));
    // Usually a full or read-only state folder: the job is refused, nothing stored is touched.
    const int64_t free_bytes = store_.FreeBytes();
    return absl::ResourceExhaustedError(absl::StrCat(
        "state_dir ", state_dir_, ": the job could not be stored (", s.message(),
        free_bytes >= 0 ? absl::StrCat("; ", free_bytes, " bytes free there") : "",
        "); nothing was queued; free space in the daemon's state_dir (or ask its admin) and submit again"));
  }
  StoreUnsaved();  // records that found no room earlier may fit now
  live_[job.id()] = job;
  states_[job.id()] = job.state();
  history_.Add(job.spec().label(), job.id());
  return absl::OkStatus();
}

void JobRecords::Changed(const v1::Job& job, bool persist) {
  mu_.AssertHeld();
  if (persist) {
    StoreUnsaved();
    if (absl::Status s = store_.SaveJob(job); !s.ok()) {
      spdlog::error("job {}: could not store its record (kept in memory, stored again with the next record): {}",
                    job.id(), std::string(s.message()));
      unsaved_.insert(job.id());
    } else {
      unsaved_.erase(job.id());
    }
  }
  states_[job.id()] = job.state();
  Retire(job.id());
  changed_.SignalAll();
}

void JobRecords::Retire(const std::string& id) {
  mu_.AssertHeld();
  if (unsaved_.count(id) != 0) return;
  auto it = live_.find(id);
  if (it == live_.end() || !IsFinished(it->second.state())) return;
  finished_.Keep(live_.extract(it));
}

void JobRecords::StoreUnsaved() {
  mu_.AssertHeld();
  for (auto it = unsaved_.begin(); it != unsaved_.end();) {
    if (!store_.SaveJob(live_.at(*it)).ok()) return;  // still no room: keep them all for later
    spdlog::info("job {}: its record is stored now", *it);
    const std::string id = *it;
    it = unsaved_.erase(it);
    Retire(id);
  }
}

void JobRecords::Flush() {
  mu_.AssertHeld();
  StoreUnsaved();
  for (const std::string& id : unsaved_)
    spdlog::error("job {}: its last record could not be stored; the state_dir holds an older one", id);
  RefreshRecordCache(true);
}

// Rewriting the cache costs a few tens of ms per 10,000 jobs, under mu_: not after each job.
constexpr std::chrono::minutes kRecordCacheInterval(5);

void JobRecords::RefreshRecordCache(bool now_anyway) {
  mu_.AssertHeld();
  const auto now = std::chrono::steady_clock::now();
  if (!now_anyway && now - cache_saved_at_ < kRecordCacheInterval) return;
  cache_saved_at_ = now;
  if (absl::Status s = store_.SaveCache(); !s.ok())
    spdlog::warn("the record cache could not be written (a restart parses the records): {}", std::string(s.message()));
}

bool JobRecords::BeginPhase(v1::Job& job, const std::string& phase, const std::string& submitted_at) {
  mu_.AssertHeld();
  auto it = phases_.find(job.id());
  if (it == phases_.end()) it = phases_.try_emplace(job.id(), SteadyClock(), submitted_at).first;
  if (!it->second.Begin(phase)) return false;
  *job.mutable_timeline() = it->second.Snapshot();
  return true;
}

void JobRecords::EarlyChildrenStarted(const std::string& id, int count) {
  mu_.AssertHeld();
  if (auto it = phases_.find(id); it != phases_.end()) {
    it->second.EarlyChildrenStarted(count);
    *live_.at(id).mutable_timeline() = it->second.Snapshot();
  }
}

void JobRecords::RefreshTimeline(v1::Job& job) {
  mu_.AssertHeld();
  if (auto it = phases_.find(job.id()); it != phases_.end()) *job.mutable_timeline() = it->second.Snapshot();
}

void JobRecords::EndPhases(v1::Job& job) {
  mu_.AssertHeld();
  auto it = phases_.find(job.id());
  if (it == phases_.end()) return;
  it->second.End();
  *job.mutable_timeline() = it->second.Snapshot();
  phases_.erase(it);
}

void JobRecords::CompleteResult(const std::string& id, const v1::Timeline& job_timeline, v1::JobResult* result) {
  mu_.AssertHeld();
  const v1::Job* job = Find(id);
  const std::string node = job != nullptr ? job->node() : "";
  if (result->has_calibration()) {
    result->mutable_calibration()->mutable_noise_floor()->set_job_id(id);
    v1::NoiseFloor floor = result->calibration().noise_floor();
    if (absl::Status s = store_.SaveResult(id, *result); !s.ok())
      spdlog::warn("job {}: its result keeps no job_id: {}", id, std::string(s.message()));
    const std::string key = NoiseFloorKey(node, floor.device());
    if (absl::Status s = store_.SaveNoiseFloor(floor, key); !s.ok())
      spdlog::error(
          "job {}: its noise floor could not be stored (kept until the daemon stops; the state folder keeps "
          "the previous one): {}",
          id, std::string(s.message()));
    noise_floors_[key] = std::move(floor);
    return;
  }
  const std::string now = NowRfc3339();
  if (result->has_comparison()) {
    v1::Comparison* c = result->mutable_comparison();
    const std::optional<v1::NoiseFloor> noise_floor = this->noise_floor(node, c->before().settings().device());
    if (noise_floor)
      *c->mutable_noise_floor() = AttachNoiseFloor(*noise_floor, SettingsOfComparison(*c), now, noise_floor_max_age_s_);
    *c->mutable_job_timeline() = job_timeline;
  } else if (result->has_report()) {
    v1::BenchmarkReport* r = result->mutable_report();
    const std::optional<v1::NoiseFloor> noise_floor = this->noise_floor(node, r->settings().device());
    if (noise_floor)
      *r->mutable_noise_floor() = AttachNoiseFloor(*noise_floor, SettingsOfReport(*r), now, noise_floor_max_age_s_);
    *r->mutable_job_timeline() = job_timeline;
  } else {
    return;
  }
  if (absl::Status s = store_.SaveResult(id, *result); !s.ok())
    spdlog::error(
        "job {}: the noise floor and job timeline could not be added to its result (the result stays "
        "without them): {}",
        id, std::string(s.message()));
}

bool JobRecords::WaitForChange(absl::Time deadline) const {
  mu_.AssertHeld();
  return changed_.WaitWithDeadline(&mu_, deadline);
}

}  // namespace torchscan::daemon
