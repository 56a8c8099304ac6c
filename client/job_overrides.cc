#include "client/job_overrides.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace torchscan {
namespace {

// Flags about the command, not the job: --daemon-path says how the job file's own files travel,
// --fail-on and --gate-on what the exit code says.
bool NotAJobFlag(const std::string& flag) {
  return flag == "--job" || flag == "--output" || flag == "--force" || flag == "--cancel-on-interrupt" ||
         flag == "--help" || flag == "--daemon-path" || flag == "--fail-on" || flag == "--gate-on";
}

std::vector<std::string> OverridableFlags(bool is_compare) {
  std::vector<std::string> flags = {"--threads", "--min-run-time", "--rss", "--instructions",
                                    "--label",   "--revision",     "--node"};
  if (is_compare) flags.insert(flags.end(), {"--reverse", "--rounds"});
  return flags;
}

std::string Text(bool b) { return b ? "true" : "false"; }
std::string Text(double d) { return absl::StrCat(d); }
std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

}  // namespace

std::string JobFileOverrideFlags(bool is_compare) {
  std::vector<std::string> flags = OverridableFlags(is_compare);
  const std::string last = flags.back();
  flags.pop_back();
  return absl::StrCat(absl::StrJoin(flags, ", "), " and ", last);
}

absl::Status ApplyFlagsToJobFile(const std::vector<std::string>& given, const RunFlags& run,
                                 const CompareFlags* compare, const std::string& job_file, v1::JobSpec* spec,
                                 std::vector<std::string>* overrides) {
  const bool is_compare = spec->has_compare();
  std::vector<std::string> flags;
  for (const std::string& f : given)
    if (!NotAJobFlag(f)) flags.push_back(f);
  const bool compare_flags = is_compare && compare != nullptr;
  const std::vector<std::string> allowed = OverridableFlags(compare_flags);
  for (const std::string& f : flags)
    if (std::find(allowed.begin(), allowed.end(), f) == allowed.end())
      return absl::InvalidArgumentError(absl::StrCat(
          f, ": cannot be combined with --job ", job_file,
          ", which defines the model, inputs, variants and checks; edit the file or leave out --job (flags "
          "that may go with --job: ",
          JobFileOverrideFlags(compare_flags), ")"));
  const auto has = [&](const char* f) { return std::find(flags.begin(), flags.end(), f) != flags.end(); };

  // The flags' own checks first (MeasureSpecFromFlags's), so that nothing changes on error.
  MeasureFlags probe;
  probe.run = run;
  if (absl::StatusOr<v1::JobSpec> s = MeasureSpecFromFlags(probe); !s.ok()) return s.status();
  if (is_compare && has("--rounds"))
    if (absl::Status s = ValidateRoundsFlag(compare->rounds); !s.ok()) return s;

  v1::JobSpec updated = *spec;
  std::vector<std::string> listed;
  v1::MeasurementOptions* o = updated.mutable_options();
  if (has("--threads")) {
    listed.push_back(absl::StrCat("intra_op_threads ", o->intra_op_threads(), " -> ", run.threads, " (--threads)"));
    o->set_intra_op_threads(run.threads);
  }
  if (has("--min-run-time")) {
    listed.push_back(absl::StrCat("min_run_time_s ", Text(o->min_run_time_s()), " -> ", Text(run.min_run_time),
                                  " (--min-run-time)"));
    o->set_min_run_time_s(run.min_run_time);
  }
  if (has("--rss")) {
    listed.push_back(absl::StrCat("rss ", Text(o->rss()), " -> ", Text(run.rss), " (--rss)"));
    o->set_rss(run.rss);
  }
  if (has("--instructions")) {
    listed.push_back(
        absl::StrCat("instructions ", Text(o->instructions()), " -> ", Text(run.instructions), " (--instructions)"));
    o->set_instructions(run.instructions);
  }
  if (has("--label")) {
    listed.push_back(absl::StrCat("label ", Quoted(updated.label()), " -> ", Quoted(run.label), " (--label)"));
    updated.set_label(run.label);
  }
  if (has("--revision")) {
    listed.push_back(
        absl::StrCat("revision ", Quoted(updated.revision()), " -> ", Quoted(run.revision), " (--revision)"));
    updated.set_revision(run.revision);
  }
  if (has("--node")) {
    listed.push_back(absl::StrCat("node ", Quoted(updated.node()), " -> ", Quoted(run.node), " (--node)"));
    updated.set_node(run.node);
  }
  if (is_compare && has("--reverse")) {
    listed.push_back(
        absl::StrCat("reverse ", Text(updated.compare().reverse()), " -> ", Text(compare->reverse), " (--reverse)"));
    updated.mutable_compare()->set_reverse(compare->reverse);
  }
  if (is_compare && has("--rounds")) {
    listed.push_back(absl::StrCat("rounds ", updated.compare().rounds(), " -> ", compare->rounds, " (--rounds)"));
    updated.mutable_compare()->set_rounds(compare->rounds);
  }
  *spec = std::move(updated);
  overrides->insert(overrides->end(), listed.begin(), listed.end());
  return absl::OkStatus();
}

}  // namespace torchscan
