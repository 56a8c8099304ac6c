#include "daemon/device_scheduler.h"

#include <algorithm>
#include <utility>

#include "spec/device_name.h"
#include "spec/job_spec.h"

namespace torchscan::daemon {
namespace {

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool Overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& name) { return Contains(b, name); });
}

// Every offered device, "cpu" first.
std::vector<std::string> Everything(const std::vector<std::string>& offered) {
  std::vector<std::string> all;
  if (Contains(offered, "cpu")) all.push_back("cpu");
  for (const std::string& name : offered)
    if (name != "cpu") all.push_back(name);
  return all;
}

}  // namespace

std::vector<std::string> JobClaims(const v1::JobSpec& spec, const std::vector<std::string>& offered) {
  std::vector<spec::DeviceName> gpus;
  const std::vector<const v1::WorkloadSpec*> workloads = spec::JobWorkloads(spec);
  if (workloads.empty()) return Everything(offered);  // a calibration of the built-in default: the CPU
  for (const v1::WorkloadSpec* w : workloads) {
    absl::StatusOr<spec::DeviceName> device = spec::ParseDeviceName(w->device());
    if (!device.ok() || !device->cuda || !Contains(offered, device->text)) return Everything(offered);
    gpus.push_back(*device);
  }
  std::sort(gpus.begin(), gpus.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  std::vector<std::string> claims;
  for (const spec::DeviceName& gpu : gpus)
    if (!Contains(claims, gpu.text)) claims.push_back(gpu.text);
  return claims;
}

DeviceScheduler::DeviceScheduler(std::vector<std::string> devices, int max_length, int max_per_user)
    : devices_(std::move(devices)), queue_(max_length, max_per_user) {}

absl::Status DeviceScheduler::Push(const std::string& id, const std::string& user, std::vector<std::string> claims) {
  if (absl::Status s = queue_.Push(id, user); !s.ok()) return s;
  claims_[id] = std::move(claims);
  return absl::OkStatus();
}

void DeviceScheduler::Restore(const std::string& id, const std::string& user, std::vector<std::string> claims) {
  queue_.Restore(id, user);
  claims_[id] = std::move(claims);
}

bool DeviceScheduler::Remove(const std::string& id) {
  if (!queue_.Remove(id)) return false;
  claims_.erase(id);
  return true;
}

std::optional<std::string> DeviceScheduler::Next(const std::string& lane) const {
  std::vector<std::string> held;  // busy, or claimed by a job ahead in the walk
  for (const auto& [device, job] : busy_) held.push_back(device);
  for (const std::string& id : queue_.ids()) {
    const std::vector<std::string>& claims = claims_.at(id);
    if (!Overlap(claims, held) && claims.front() == lane) return id;
    held.insert(held.end(), claims.begin(), claims.end());
    if (Contains(held, lane)) return std::nullopt;  // a job ahead waits for this lane's device
  }
  return std::nullopt;
}

std::optional<std::string> DeviceScheduler::Start(const std::string& lane) {
  std::optional<std::string> id = Next(lane);
  if (!id) return std::nullopt;
  queue_.Take(*id);
  for (const std::string& device : claims_.at(*id)) busy_[device] = *id;
  return id;
}

void DeviceScheduler::Finish(const std::string& id) {
  const auto found = claims_.find(id);
  if (found == claims_.end()) return;
  for (const std::string& device : found->second)
    if (auto busy = busy_.find(device); busy != busy_.end() && busy->second == id) busy_.erase(busy);
  claims_.erase(found);
}

int DeviceScheduler::Position(const std::string& id) const {
  const auto mine = claims_.find(id);  // queued or running
  if (mine == claims_.end()) return 0;
  int position = 1;
  for (const std::string& ahead : queue_.ids()) {  // the fair order, computed once
    if (ahead == id) return position;
    if (Overlap(claims_.at(ahead), mine->second)) ++position;
  }
  return 0;  // running
}

std::vector<std::string> DeviceScheduler::ClaimsOf(const std::string& id) const {
  const auto found = claims_.find(id);
  return found == claims_.end() ? std::vector<std::string>() : found->second;
}

int DeviceScheduler::QueuedOn(const std::string& device) const {
  int queued = 0;
  for (const std::string& id : queue_.ids()) queued += Contains(claims_.at(id), device) ? 1 : 0;
  return queued;
}

std::string DeviceScheduler::RunningOn(const std::string& device) const {
  const auto found = busy_.find(device);
  return found == busy_.end() ? "" : found->second;
}

std::vector<std::string> DeviceScheduler::Running() const {
  std::vector<std::string> ids;
  for (const auto& [device, id] : busy_)
    if (!Contains(ids, id)) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace torchscan::daemon
