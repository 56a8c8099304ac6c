// torchscan-client: submits benchmark jobs to torchscand, collects reports and comparisons,
// and renders them. With no --daemon (nor TORCHSCAN_DAEMON) it starts a private daemon for
// the command. Exit codes: client/exit_codes.h (also in --help).
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "client/cli_suggestions.h"
#include "client/client_context.h"
#include "client/exit_codes.h"
#include "client/job_commands.h"
#include "client/job_flags.h"
#include "client/job_overrides.h"
#include "client/jobs_commands.h"
#include "client/local_commands.h"
#include "client/multi_daemon.h"
#include "report/render_by_format.h"

namespace {

constexpr const char* kNotes =
    "Daemon: --daemon wins over $TORCHSCAN_DAEMON, which wins over a private daemon started for the command.\n"
    "Results: --output is checked before submitting (--force replaces earlier evidence); without it they go to\n"
    "./torchscan-<job id>/. Ctrl-C cancels a private daemon's job; a resident daemon's job keeps running (the\n"
    "message says how to cancel or fetch it) unless --cancel-on-interrupt.\n";

// The long names of the options given on `app`'s command line, e.g. {"--min-run-time"}.
std::vector<std::string> GivenFlags(const CLI::App* app) {
  std::vector<std::string> given;
  for (const CLI::Option* o : app->get_options())
    if (o->count() > 0 && !o->get_lnames().empty()) given.push_back("--" + o->get_lnames().front());
  return given;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace torchscan;
  ClientContext ctx;
  ctx.terminal = ::isatty(STDERR_FILENO) == 1;

  CLI::App app{"torchscan-client: check an optimization of a PyTorch workload on real hardware"};
  app.footer(kNotes + ExitCodesFooter());
  app.require_subcommand(1);
  app.add_option("--daemon", ctx.daemons,
                 "torchscand address (unix:PATH or host:port), repeatable: measure/compare/example run on each; "
                 "default: $TORCHSCAN_DAEMON, else a private daemon for this command");
  app.add_option("--daemons-file", ctx.daemons_file, "file listing daemon addresses, one per line");
  app.add_option("--token-file", ctx.token_file,
                 "file holding your token: the bare token or your USER TOKEN line (default: $TORCHSCAN_TOKEN)");
  app.add_option("--tls-ca", ctx.credentials.tls_ca_file, "PEM CA of the daemons' certificates: TLS on");
  app.add_option("--tls-cert", ctx.credentials.tls_cert_file, "PEM client certificate (mutual TLS)");
  app.add_option("--tls-key", ctx.credentials.tls_key_file, "PEM private key of --tls-cert");
  app.add_option("--tls-server-name", ctx.credentials.tls_server_name, "name expected in the daemon's certificate");
  app.add_option("--torchscand", ctx.torchscand, "torchscand binary for the private daemon");
  app.add_flag("--json", ctx.json,
               "machine-readable JSON on stdout (measure, compare, example: one JobCommandOutput document)");
  app.add_flag("--color", ctx.color, "ANSI colours in summaries");

  std::string output, job_file, id, state, format = "html", input, before, after, run;
  int limit = 0;
  JobRunOptions job_options;
  const auto add_output = [&](CLI::App* sub, const std::string& files) {
    CLI::Option* o = sub->add_option("--output", job_options.output_dir,
                                     "folder for " + files + " (created when missing; default ./torchscan-<job id>/)");
    sub->add_flag("--force", job_options.force, "replace the evidence an earlier run left in --output");
    sub->add_flag("--cancel-on-interrupt", job_options.cancel_on_interrupt,
                  "Ctrl-C cancels the job on a resident daemon too (a private daemon's job is always cancelled)");
    return o;
  };

  CLI::App* info = app.add_subcommand("info", "the daemon's hardware, software, devices and configuration");

  MeasureFlags measure_flags;
  CLI::App* measure = app.add_subcommand("measure", "measure one workload");
  AddMeasureFlags(measure, &measure_flags);
  measure->footer(kMeasureExamples);
  measure->add_option("--job", job_file,
                      "a JSON job file (JobSpec) instead of the flags; --threads, --min-run-time, --rss and --label "
                      "given beside it override its fields, other job flags are refused");
  add_output(measure, "report.json and report.html");

  CompareFlags compare_flags;
  CLI::App* compare = app.add_subcommand("compare", "compare a baseline and a candidate workload, with an output check");
  AddCompareFlags(compare, &compare_flags);
  compare->footer(kCompareExamples);
  compare->add_option("--job", job_file,
                      "a JSON job file (JobSpec) instead of the flags; --threads, --min-run-time, --rss, --label, "
                      "--reverse and --rounds given beside it override its fields, other job flags are refused");
  add_output(compare, "comparison.json and comparison.html");

  CompareFlags example_flags = GuideExampleFlags();
  CLI::App* example = app.add_subcommand(
      "example", "the guide's benchmark_comparison: one sample at a time versus one batch");
  AddExampleFlags(example, &example_flags);
  add_output(example, "comparison.json and comparison.html")->required();  // as the guide's example

  CLI::App* jobs = app.add_subcommand("jobs", "a resident daemon's jobs (--daemon or TORCHSCAN_DAEMON)");
  jobs->require_subcommand(1);
  CLI::App* list = jobs->add_subcommand("list", "queued, running and finished jobs, newest first");
  list->add_option("--state", state, "only jobs in this state");
  list->add_option("--limit", limit, "at most this many");
  CLI::App* show = jobs->add_subcommand("show", "one job");
  CLI::App* cancel = jobs->add_subcommand("cancel", "cancel a queued or running job");
  CLI::App* watch = jobs->add_subcommand("watch", "follow a job until it finishes");
  CLI::App* fetch = jobs->add_subcommand("fetch", "the report or comparison of a succeeded job");
  for (CLI::App* sub : {show, cancel, watch, fetch}) sub->add_option("id", id, "job id")->required();
  fetch->add_option("--output", output, "folder for the JSON and HTML");
  bool force = false;
  fetch->add_flag("--force", force, "replace the evidence an earlier run left in --output");

  CLI::App* render = app.add_subcommand("render", "render a saved report or comparison (no daemon)");
  render->add_option("input", input, "report or comparison JSON")->required();
  render->add_option("-o,--output", output, "output file (default stdout)");
  render->add_option("--format", format,
                     RenderFormatList(" | ") +
                         " (gbench refuses a comparison whose check failed or "
                         "whose runs are not comparable: export its runs one by one with --run)")
      ->capture_default_str();
  render->add_option("--run", run, "one run of a comparison, rendered as a plain report: before, after or its name");

  CLI::App* compare_reports = app.add_subcommand("compare-reports", "compare two saved reports, no output check");
  compare_reports->add_option("before", before, "before report JSON")->required();
  compare_reports->add_option("after", after, "after report JSON")->required();
  compare_reports->add_option("--output", output, "folder for comparison.json and comparison.html");
  compare_reports->add_flag("--force", force, "replace the comparison an earlier run left in --output");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    const std::string suggestion = SuggestForCommandLine(app, std::vector<std::string>(argv + 1, argv + argc));
    if (suggestion.empty()) return app.exit(e) == 0 ? 0 : kExitBadInput;
    std::fprintf(stderr, "%s\n", suggestion.c_str());
    return kExitBadInput;
  }

  if (absl::Status s = ResolveClientContext(&ctx); !s.ok()) return ReportError(s);
  if (*info) return InfoCommand(ctx);
  if (*measure || *compare || *example) {
    const FileTransport files = (*measure ? measure_flags.model : compare_flags.model).transport();
    CLI::App* sub = *measure ? measure : *compare ? compare : example;
    absl::StatusOr<v1::JobSpec> spec = !job_file.empty() ? LoadJobFileWithFiles(job_file, files)
                                       : *measure       ? MeasureSpecFromFlags(measure_flags)
                                       : *compare       ? CompareSpecFromFlags(compare_flags)
                                                        : CompareSpecFromFlags(example_flags);
    if (!spec.ok()) return ReportError(spec.status());
    if (!job_file.empty()) {
      std::vector<std::string> overrides;
      const absl::Status applied =
          ApplyFlagsToJobFile(GivenFlags(sub), *measure ? measure_flags.run : compare_flags.run,
                              *compare ? &compare_flags : nullptr, job_file, &*spec, &overrides);
      if (!applied.ok()) return ReportError(applied);
      for (const std::string& o : overrides)
        std::fprintf(stderr, "torchscan-client: %s: overridden by the command line: %s\n", job_file.c_str(), o.c_str());
      job_options.spec_from_flags = false;
    }
    if (ctx.daemons.size() > 1) return RunJobOnDaemons(ctx, *spec, job_options);
    return RunJobCommand(ctx, *spec, job_options);
  }
  if (*list) return ListJobsCommand(ctx, state, limit);
  if (*show) return ShowJobCommand(ctx, id);
  if (*cancel) return CancelJobCommand(ctx, id);
  if (*watch) return WatchJobCommand(ctx, id);
  if (*fetch) return FetchJobCommand(ctx, id, output, force);
  if (*render) return RenderCommand(ctx, input, output, format, run);
  if (*compare_reports) return CompareReportsCommand(ctx, before, after, output, force);
  return kExitBadInput;
}
