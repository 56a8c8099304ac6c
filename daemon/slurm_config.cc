#include "daemon/slurm_config.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <regex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "process/find_program.h"
#include "spec/field_rules.h"

namespace torchscan::daemon {
namespace {

absl::Status Invalid(const std::string& field, const std::string& what) {
  return spec::FieldError("slurm." + field, what);
}

// A single Slurm name (partition, account): no spaces, commas or control characters.
absl::Status CheckName(const std::string& field, const std::string& value, bool list_allowed) {
  for (char c : value) {
    if (static_cast<unsigned char>(c) <= ' ' || (!list_allowed && c == ','))
      return Invalid(field, "\"" + value + "\" is not a Slurm " + (list_allowed ? "expression" : "name") +
                                (list_allowed ? " (no spaces)" : " (no spaces or commas)"));
  }
  return absl::OkStatus();
}

}  // namespace

void ApplySlurmFlags(const SlurmFlags& flags, v1::DaemonConfig* config) {
  const std::vector<std::pair<const std::optional<std::string>*, std::string*>> pairs = {
      {&flags.partition, config->mutable_slurm()->mutable_partition()},
      {&flags.account, config->mutable_slurm()->mutable_account()},
      {&flags.time_limit, config->mutable_slurm()->mutable_time_limit()},
      {&flags.constraint, config->mutable_slurm()->mutable_constraint()},
      {&flags.gres, config->mutable_slurm()->mutable_gres()},
      {&flags.node_bin_dir, config->mutable_slurm()->mutable_node_bin_dir()},
  };
  for (const auto& [flag, field] : pairs)
    if (*flag) *field = **flag;
  if (config->slurm().ByteSizeLong() == 0) config->clear_slurm();
}

bool IsSlurmFront(const v1::DaemonConfig& config) { return !config.slurm().partition().empty(); }

void ApplySlurmDefaults(v1::DaemonConfig* config) {
  if (!config->has_slurm()) return;
  v1::SlurmConfig* slurm = config->mutable_slurm();
  if (slurm->time_limit().empty() && IsSlurmFront(*config)) {
    const double minutes = std::ceil(config->limits().job_wall_time_s() / 60.0) + 5;
    slurm->set_time_limit(absl::StrCat(static_cast<long long>(minutes)));
  }
}

absl::Status ValidateSlurmConfig(const v1::DaemonConfig& config, const std::string& node_job_path) {
  if (!config.has_slurm()) return absl::OkStatus();
  const v1::SlurmConfig& slurm = config.slurm();
  if (slurm.partition().empty())
    return Invalid("partition",
                   "required with any other slurm.* key: the partition whose nodes run the jobs "
                   "(--slurm-partition NAME)");
  if (absl::Status s = CheckName("partition", slurm.partition(), false); !s.ok()) return s;
  if (absl::Status s = CheckName("account", slurm.account(), false); !s.ok()) return s;
  if (absl::Status s = CheckName("constraint", slurm.constraint(), true); !s.ok()) return s;
  if (absl::Status s = CheckName("gres", slurm.gres(), true); !s.ok()) return s;
  static const std::regex kTime(R"(^(\d+|\d+:\d+|\d+:\d+:\d+|\d+-\d+|\d+-\d+:\d+|\d+-\d+:\d+:\d+)$)");
  if (!std::regex_match(slurm.time_limit(), kTime))
    return Invalid("time_limit",
                   "\"" + slurm.time_limit() + "\" is not a Slurm time (minutes, H:M:S or D-H:M:S, e.g. \"01:30:00\")");
  if (!slurm.node_bin_dir().empty() && slurm.node_bin_dir()[0] != '/')
    return Invalid("node_bin_dir", "\"" + slurm.node_bin_dir() + "\" must be an absolute path on the nodes");
  for (const char* program : {"sbatch", "squeue", "scancel", "sinfo"}) {
    if (process::FindProgram(program).empty())
      return Invalid("partition", absl::StrCat("a Slurm front needs ", program,
                                               " on PATH; install Slurm's client (apt-get install slurm-client)"));
  }
  if (slurm.node_bin_dir().empty() && ::access(node_job_path.c_str(), X_OK) != 0)
    return Invalid("node_bin_dir", "empty, and " + node_job_path +
                                       " (the program each node runs) is not executable here; build "
                                       "//daemon:torchscan-node-job or set slurm.node_bin_dir (--slurm-bin)");
  return absl::OkStatus();
}

NodePrograms NodeProgramsOf(const v1::DaemonConfig& config, const std::string& own_node_job) {
  const std::string& dir = config.slurm().node_bin_dir();
  if (dir.empty()) return {own_node_job, config.worker_path(), config.rss_child_path()};
  return {dir + "/" + kNodeJobFileName, dir + "/torchscan-worker",
          config.rss_child_path().empty() ? "" : dir + "/torchscan_rss_child"};
}

}  // namespace torchscan::daemon
