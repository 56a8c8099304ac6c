#include "daemon/job_sandbox.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "process/run.h"

namespace torchscan::daemon {
namespace {

namespace fs = std::filesystem;

// Shown read-only to every job: the system's programs, libraries and settings.
constexpr const char* kSystemPaths[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys"};
// Hidden even there.
constexpr const char* kSystemSecrets[] = {"/etc/shadow", "/etc/shadow-", "/etc/gshadow",   "/etc/gshadow-",
                                          "/etc/ssh",    "/etc/sudoers", "/etc/sudoers.d", "/etc/torchscan"};

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

bool UnderSystem(const std::string& path) {
  for (const char* dir : kSystemPaths)
    if (path == dir || absl::StartsWith(path, absl::StrCat(dir, "/"))) return true;
  return false;
}

// The physical path of `path`'s folder joined with its name: the file the loader opens.
std::string Physical(const std::string& path) {
  char real[PATH_MAX];
  const fs::path p(path);
  if (::realpath(p.parent_path().c_str(), real) == nullptr) return "";
  return (fs::path(real) / p.filename()).string();
}

// The libraries `program` loads, as /usr/bin/ldd lists them ("name => /path (0x...)" and
// "/path (0x...)" lines).
absl::StatusOr<std::vector<std::string>> Libraries(const std::string& program) {
  std::vector<std::string> libraries;
  process::RunOptions run;
  run.spawn.path = "/usr/bin/ldd";
  run.spawn.args = {program};
  run.spawn.setup.own_process_group = true;
  run.wall_time_s = 30;
  bool missing = false;
  const process::RunResult result = process::Run(run, [&](const std::string& line) {
    if (absl::StrContains(line, "=> not found")) missing = true;
    const size_t arrow = line.find("=> ");
    const size_t start = arrow == std::string::npos ? line.find('/') : arrow + 3;
    if (start == std::string::npos || start >= line.size() || line[start] != '/') return;
    const size_t end = line.find(" (", start);
    libraries.push_back(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
  });
  if (!result.started || !result.status || !WIFEXITED(*result.status) || WEXITSTATUS(*result.status) != 0 || missing)
    return absl::FailedPreconditionError(absl::StrCat("sandbox: cannot list the libraries of ", program,
                                                      " with /usr/bin/ldd (",
                                                      missing ? "a library is not found" : "ldd failed", ")"));
  return libraries;
}

}  // namespace

absl::StatusOr<JobSandbox> JobSandbox::Create(const v1::DaemonConfig& config, int64_t tmpfs_bytes) {
  JobSandbox sandbox;
  process::SandboxSpec& spec = sandbox.base_;
  spec.tmpfs_bytes = tmpfs_bytes;
  spec.root = (fs::path(config.state_dir()) / "sandbox").string();
  std::error_code error;
  fs::create_directories(spec.root, error);
  ::chmod(spec.root.c_str(), 0700);
  if (error || !fs::is_empty(spec.root, error))
    return absl::FailedPreconditionError(
        absl::StrCat("sandbox: ", spec.root, " must be an empty folder torchscand can make; remove what is in it"));
  for (const char* dir : kSystemPaths)
    if (Exists(dir)) spec.read_only.emplace_back(dir);
  for (const std::string& program : {config.worker_path(), config.rss_child_path()}) {
    if (program.empty()) continue;
    spec.read_only.push_back(Physical(program));
    absl::StatusOr<std::vector<std::string>> libraries = Libraries(program);
    if (!libraries.ok()) return libraries.status();
    for (const std::string& library : *libraries)
      if (!UnderSystem(library)) spec.read_only.push_back(Physical(library));
  }
  for (const std::string& path : config.shared_paths()) spec.read_only.push_back(path);
  std::sort(spec.read_only.begin(), spec.read_only.end());
  spec.read_only.erase(std::unique(spec.read_only.begin(), spec.read_only.end()), spec.read_only.end());
  spec.hidden = {config.state_dir()};
  for (const std::string& secret : {config.config_file(), config.token_file(), config.tls().key_file(),
                                    config.tls().cert_file(), config.tls().client_ca_file()})
    if (!secret.empty()) spec.hidden.push_back(secret);
  for (const char* secret : kSystemSecrets) spec.hidden.emplace_back(secret);
  spec.devices = process::DefaultSandboxDevices();
  // Checked now, so that a path that cannot be shown stops the start, not a job.
  if (absl::StatusOr<std::shared_ptr<const process::SandboxPlan>> plan = sandbox.PlanFor(""); !plan.ok())
    return absl::FailedPreconditionError(plan.status().message());
  return sandbox;
}

absl::StatusOr<std::shared_ptr<const process::SandboxPlan>> JobSandbox::PlanFor(const std::string& job_dir) const {
  process::SandboxSpec spec = base_;
  if (!job_dir.empty()) spec.read_write.push_back(job_dir);
  absl::StatusOr<process::SandboxPlan> plan = process::SandboxPlan::Prepare(spec);
  if (!plan.ok()) return plan.status();
  return std::make_shared<const process::SandboxPlan>(*std::move(plan));
}

absl::Status JobSandbox::Probe(int uid, int gid) const {
  absl::StatusOr<std::shared_ptr<const process::SandboxPlan>> plan = PlanFor("");
  if (!plan.ok()) return absl::FailedPreconditionError(plan.status().message());
  const std::string stderr_path = (fs::path(base_.root).parent_path() / "sandbox-probe.stderr").string();
  process::RunOptions run;
  run.spawn.path = "/bin/true";
  run.spawn.setup.own_process_group = true;
  run.spawn.setup.uid = uid;
  run.spawn.setup.gid = gid;
  run.spawn.setup.sandbox = plan->get();
  run.stderr_path = stderr_path;
  run.wall_time_s = 30;
  const process::RunResult result = process::Run(run, [](const std::string&) {});
  std::ifstream in(stderr_path);
  std::stringstream why;
  why << in.rdbuf();
  ::unlink(stderr_path.c_str());
  if (result.started && result.status && WIFEXITED(*result.status) && WEXITSTATUS(*result.status) == 0)
    return absl::OkStatus();
  std::string text = why.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  if (text.empty()) text = result.started ? "the probe did not exit 0" : result.error.text;
  return absl::FailedPreconditionError(text);
}

}  // namespace torchscan::daemon
