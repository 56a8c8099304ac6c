#include "daemon/slurm_commands.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "io/file_io.h"
#include "process/find_program.h"
#include "process/run.h"

namespace torchscan::daemon {
namespace {

// The command's own words, without its output (for messages).
std::string CommandLine(const std::string& program, const std::vector<std::string>& args) {
  return absl::StrCat(program, args.empty() ? "" : " ", absl::StrJoin(args, " "));
}

}  // namespace

absl::StatusOr<std::string> RunSlurm(const std::string& program, const std::vector<std::string>& args,
                                     double timeout_s) {
  const std::string path = process::FindProgram(program);
  if (path.empty())
    return absl::NotFoundError(absl::StrCat(program,
                                            " is not on PATH: install Slurm's client (apt-get install "
                                            "slurm-client) on the front daemon's machine"));
  char err_template[] = "/tmp/torchscand-slurm-XXXXXX";
  const int err_fd = ::mkstemp(err_template);
  if (err_fd < 0) return absl::InternalError(absl::StrCat("cannot create a temporary file for ", program, "'s errors"));
  ::close(err_fd);
  process::RunOptions run;
  run.spawn.path = path;
  run.spawn.args = args;
  run.spawn.setup.own_process_group = true;
  run.stderr_path = err_template;
  run.wall_time_s = timeout_s;
  std::string out;
  const process::RunResult result =
      process::Run(run, [&](const std::string& line) { absl::StrAppend(&out, line, "\n"); });
  absl::StatusOr<std::string> err = ReadFile(err_template);
  ::unlink(err_template);
  const std::string stderr_text(absl::StripAsciiWhitespace(err.ok() ? *err : ""));
  const std::string command = CommandLine(program, args);
  if (!result.started) return absl::InternalError(absl::StrCat(command, " did not start: ", result.error.text));
  if (result.end == process::End::kTimedOut)
    return absl::DeadlineExceededError(absl::StrCat(command, " did not answer within ", timeout_s, " s"));
  if (result.status && WIFEXITED(*result.status) && WEXITSTATUS(*result.status) == 0) return out;
  if (absl::StrContains(stderr_text, "Unable to contact slurm controller") ||
      absl::StrContains(stderr_text, "Socket timed out") || absl::StrContains(stderr_text, "Connection refused"))
    return absl::UnavailableError(absl::StrCat("Slurm's controller is unreachable (", stderr_text,
                                               "); start slurmctld (check with `scontrol ping`), then try again"));
  return absl::InternalError(absl::StrCat(command, " failed: ", stderr_text.empty() ? "no message" : stderr_text));
}

std::string ShellQuote(std::string_view text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') quoted += "'\\''";
    else quoted += c;
  }
  return quoted + "'";
}

// The configured gres, with a GPU job's own GPU count in place of any gpu entry.
std::string Gres(const std::string& configured, int gpus) {
  if (gpus <= 0) return configured;
  std::vector<std::string> kept;
  for (absl::string_view entry : absl::StrSplit(configured, ',', absl::SkipEmpty()))
    if (!absl::StartsWith(entry, "gpu")) kept.push_back(std::string(entry));
  kept.push_back(absl::StrCat("gpu:", gpus));
  return absl::StrJoin(kept, ",");
}

std::vector<std::string> SbatchArgs(const v1::SlurmConfig& config, const SbatchRequest& request) {
  std::vector<std::string> args = {"--parsable",
                                   "--job-name=torchscan-" + request.job_id,
                                   "--partition=" + config.partition(),
                                   "--nodes=1",
                                   "--ntasks=1",
                                   "--exclusive",
                                   "--no-requeue",
                                   "--chdir=" + request.slurm_dir,
                                   "--output=" + request.slurm_dir + "/node.log",
                                   "--time=" + config.time_limit()};
  if (!config.account().empty()) args.push_back("--account=" + config.account());
  if (!config.constraint().empty()) args.push_back("--constraint=" + config.constraint());
  if (const std::string gres = Gres(config.gres(), request.gpus); !gres.empty()) args.push_back("--gres=" + gres);
  if (!request.node.empty()) args.push_back("--nodelist=" + request.node);
  // The whole node to the one task; srun makes it a job step, so that scancel and a node
  // going down reach the worker through Slurm.
  args.push_back(absl::StrCat(
      "--wrap=exec srun --unbuffered --exclusive --nodes=1 --ntasks=1 --cpus-per-task=\"$SLURM_CPUS_ON_NODE\" ",
      ShellQuote(request.node_job), " --config ", ShellQuote(request.node_config), " --job ",
      ShellQuote(request.job_id)));
  return args;
}

absl::StatusOr<std::string> ParseSbatchId(std::string_view out) {
  absl::string_view text = absl::StripAsciiWhitespace(absl::string_view(out.data(), out.size()));
  const absl::string_view id = text.substr(0, text.find(';'));
  int64_t number = 0;
  if (id.empty() || !absl::SimpleAtoi(id, &number) || number <= 0)
    return absl::InternalError(absl::StrCat("sbatch printed no job id (\"", text, "\")"));
  return std::string(id);
}

std::vector<std::string> SqueueArgs(const std::string& partition) {
  return {"--noheader", "--states=all", "--partition=" + partition, "--format=%i|%T|%N|%r|%j|%Z"};
}

std::map<std::string, SlurmJobState> ParseSqueue(std::string_view out) {
  std::map<std::string, SlurmJobState> jobs;
  for (absl::string_view line : absl::StrSplit(absl::string_view(out.data(), out.size()), '\n')) {
    std::vector<std::string> fields = absl::StrSplit(absl::StripAsciiWhitespace(line), absl::MaxSplits('|', 5));
    if (fields.size() != 6 || fields[0].empty()) continue;
    // squeue prints "(null)" for a job without a node yet: none, said once here.
    jobs[fields[0]] = SlurmJobState{fields[1], fields[2] == "(null)" ? "" : fields[2], fields[3], fields[4], fields[5]};
  }
  return jobs;
}

bool IsSlurmStateFinal(const std::string& state) {
  static const std::set<std::string> kLive = {"PENDING",   "RUNNING",      "CONFIGURING", "COMPLETING",
                                              "SUSPENDED", "REQUEUED",     "RESIZING",    "SIGNALING",
                                              "STAGE_OUT", "REQUEUE_HOLD", "REQUEUE_FED"};
  return !kLive.count(state);
}

std::vector<std::string> SinfoArgs(const std::string& partition) {
  return {"--noheader", "--Node", "--partition=" + partition, "--format=%N|%T|%c|%f|%E"};
}

std::vector<v1::SlurmNode> ParseSinfo(std::string_view out, std::map<std::string, std::string>* reasons) {
  std::vector<v1::SlurmNode> nodes;
  std::set<std::string> seen;  // a node in two partitions is listed twice
  for (absl::string_view line : absl::StrSplit(absl::string_view(out.data(), out.size()), '\n')) {
    std::vector<std::string> fields = absl::StrSplit(absl::StripAsciiWhitespace(line), absl::MaxSplits('|', 4));
    if (fields.size() != 5 || fields[0].empty() || !seen.insert(fields[0]).second) continue;
    v1::SlurmNode node;
    node.set_name(fields[0]);
    // sinfo marks states with a trailing flag ("idle*": not responding, "drain~": powered off ...).
    std::string state = absl::AsciiStrToLower(fields[1]);
    while (!state.empty() && std::string("*~#!%$@^-+").find(state.back()) != std::string::npos) state.pop_back();
    node.set_state(state);
    int cpus = 0;
    if (absl::SimpleAtoi(fields[2], &cpus)) node.set_cpus(cpus);
    node.set_features(fields[3] == "(null)" ? "" : fields[3]);
    if (reasons != nullptr && fields[4] != "none" && !fields[4].empty()) (*reasons)[fields[0]] = fields[4];
    nodes.push_back(std::move(node));
  }
  return nodes;
}

}  // namespace torchscan::daemon
