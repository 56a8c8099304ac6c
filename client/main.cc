// torchscan-client: submits benchmark jobs to torchscand, collects reports and comparisons,
// and renders them. With no --daemon (nor TORCHSCAN_DAEMON) it starts a private daemon for
// the command. Exit codes: client/exit_codes.h (also in --help).
#include <unistd.h>

#include <cstdlib>

#include <CLI/CLI.hpp>

#include "client/cli_suggestions.h"
#include "client/client_context.h"
#include "client/exit_codes.h"
#include "client/history_command.h"
#include "client/job_flags.h"
#include "client/job_overrides.h"
#include "client/jobs_subcommands.h"
#include "client/local_commands.h"
#include "client/multi_daemon.h"
#include "client/personal_daemon.h"
#include "client/run_job_commands.h"
#include "report/render_by_format.h"

namespace torchscan {
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

// Every value the command line can set, and the subcommands to tell which one ran.
struct CommandLine {
  std::string output, job_file, id, state, format = "html", input, before, after, run;
  int limit = 0;
  bool force = false;
  JobRunOptions job_options;
  MeasureFlags measure_flags;
  CompareFlags compare_flags;
  CompareFlags example_flags = GuideExampleFlags();
  CalibrateFlags calibrate_flags;
  CLI::App *info = nullptr, *measure = nullptr, *compare = nullptr, *example = nullptr, *calibrate = nullptr;
  CLI::App *list = nullptr, *show = nullptr, *cancel = nullptr, *watch = nullptr, *fetch = nullptr;
  CLI::App *render = nullptr, *compare_reports = nullptr, *history = nullptr;
  HistoryOptions history_options;
  std::string fail_on, gate_on = "label";    // --fail-on, --gate-on (compare, compare-reports)
  std::string instruction_threshold = "1%";  // --instruction-threshold (with --gate-on instructions)
  bool details = false;                      // render --details
};

// --fail-on and --gate-on: a CI gate on the comparison's verdict (client/verdict_gate.h).
void AddGateOptions(CLI::App* sub, CommandLine* cl) {
  sub->add_option("--fail-on", cl->fail_on,
                  "exit 6 when the verdict is: slower | not-faster (slower, within_variability, unavailable) | "
                  "any-change (faster or slower); default: no gating (a failed output check is always exit 1)");
  sub->add_option("--gate-on", cl->gate_on,
                  "the verdict --fail-on reads: label (the guide's latency_change, default) | claim (the paired "
                  "claim; unavailable without paired rounds) | instructions (the callgrind count's change; turns on "
                  "--instructions for compare)");
  sub->add_option("--instruction-threshold", cl->instruction_threshold,
                  "with --gate-on instructions: the change in instructions per call that counts as slower or faster, "
                  "e.g. 1% (default) or 0.5%");
}

void AddDaemonOptions(CLI::App& app, ClientContext* ctx) {
  app.add_option("--daemon", ctx->daemons,
                 "torchscand address (unix:PATH or host:port), repeatable: measure/compare/example run on each; "
                 "default: $TORCHSCAN_DAEMON, else a private daemon for this command");
  app.add_option("--daemons-file", ctx->daemons_file, "file listing daemon addresses, one per line");
  app.add_option("--token-file", ctx->token_file,
                 "file holding your token: the bare token or your USER TOKEN line (default: $TORCHSCAN_TOKEN)");
  app.add_option("--tls-ca", ctx->credentials.tls_ca_file, "PEM CA of the daemons' certificates: TLS on");
  app.add_option("--tls-cert", ctx->credentials.tls_cert_file, "PEM client certificate (mutual TLS)");
  app.add_option("--tls-key", ctx->credentials.tls_key_file, "PEM private key of --tls-cert");
  app.add_option("--tls-server-name", ctx->credentials.tls_server_name, "name expected in the daemon's certificate");
  app.add_option("--torchscand", ctx->torchscand, "torchscand binary for the private daemon");
  app.add_flag("--json", ctx->json,
               "machine-readable JSON on stdout (measure, compare, example: one JobCommandOutput document)");
  app.add_flag("--color", ctx->color, "ANSI colours in summaries");
}

// measure, compare and example: a job run on the daemons.
void AddJobCommands(CLI::App& app, CommandLine* cl) {
  const auto add_output = [cl](CLI::App* sub, const std::string& files) {
    CLI::Option* o = sub->add_option("--output", cl->job_options.output_dir,
                                     "folder for " + files + " (created when missing; default ./torchscan-<job id>/)");
    sub->add_flag("--force", cl->job_options.force, "replace the evidence an earlier run left in --output");
    sub->add_flag("--cancel-on-interrupt", cl->job_options.cancel_on_interrupt,
                  "Ctrl-C cancels the job on a resident daemon too (a private daemon's job is always cancelled)");
    return o;
  };
  // --job and --output of measure and compare; `overridable` names the flags that may stand beside --job.
  const auto add_job_file = [cl, &add_output](CLI::App* sub, const std::string& overridable, const std::string& files) {
    sub->add_option("--job", cl->job_file,
                    "a JSON job file (JobSpec) instead of the flags; " + overridable +
                        " given beside it override its fields, other job flags are refused");
    add_output(sub, files);
  };
  cl->measure = app.add_subcommand("measure", "measure one workload");
  AddMeasureFlags(cl->measure, &cl->measure_flags);
  cl->measure->footer(kMeasureExamples);
  add_job_file(cl->measure, JobFileOverrideFlags(/*is_compare=*/false), "report.json and report.html");

  cl->compare = app.add_subcommand("compare", "compare a baseline and a candidate workload, with an output check");
  AddCompareFlags(cl->compare, &cl->compare_flags);
  AddGateOptions(cl->compare, cl);
  cl->compare->footer(kCompareExamples);
  add_job_file(cl->compare, JobFileOverrideFlags(/*is_compare=*/true), "comparison.json and comparison.html");

  cl->calibrate = app.add_subcommand(
      "calibrate", "measure this machine's noise floor: A/A pairs of a reference workload (or your own module)");
  AddCalibrateFlags(cl->calibrate, &cl->calibrate_flags);
  add_output(cl->calibrate, "calibration.json and calibration.html");

  cl->example =
      app.add_subcommand("example", "the guide's benchmark_comparison: one sample at a time versus one batch");
  AddExampleFlags(cl->example, &cl->example_flags);
  add_output(cl->example, "comparison.json and comparison.html")->required();  // as the guide's example
}

// jobs list/show/cancel/watch/fetch on a resident daemon.
void AddJobsCommands(CLI::App& app, CommandLine* cl) {
  CLI::App* jobs = app.add_subcommand("jobs", "a resident daemon's jobs (--daemon or TORCHSCAN_DAEMON)");
  jobs->require_subcommand(1);
  cl->list = jobs->add_subcommand("list", "queued, running and finished jobs, newest first");
  cl->list->add_option("--state", cl->state, "only jobs in this state");
  cl->list->add_option("--limit", cl->limit, "at most this many");
  cl->show = jobs->add_subcommand("show", "one job");
  cl->cancel = jobs->add_subcommand("cancel", "cancel a queued or running job");
  cl->watch = jobs->add_subcommand("watch", "follow a job until it finishes");
  cl->fetch = jobs->add_subcommand("fetch", "the report or comparison of a succeeded job");
  for (CLI::App* sub : {cl->show, cl->cancel, cl->watch, cl->fetch})
    sub->add_option("id", cl->id, "job id")->required();
  cl->fetch->add_option("--output", cl->output, "folder for the JSON and HTML (default ./torchscan-<job id>/)");
  cl->fetch->add_flag("--force", cl->force, "replace the evidence an earlier run left in --output");
}

// history NAME: a benchmark's results over time, from a resident daemon.
void AddHistoryCommand(CLI::App& app, CommandLine* cl) {
  HistoryOptions& o = cl->history_options;
  cl->history =
      app.add_subcommand("history",
                         "a benchmark's results over time: the jobs labelled NAME on a resident daemon (--daemon or "
                         "TORCHSCAN_DAEMON), as a table with a sparkline and history.html");
  cl->history->add_option("name", o.name, "the benchmark's name: the jobs' --label")->required();
  cl->history->add_option("--state", o.states, "only jobs in this state (repeatable; default: every state)");
  cl->history->add_option("--limit", o.limit, "the newest N jobs; 0: every job")->capture_default_str();
  cl->history->add_option("--device", o.device,
                          "only the jobs that ran on this device (cpu, cuda:N): each device's latencies are a "
                          "history of their own");
  cl->history->add_option("--output", o.output_dir,
                          "folder for history.html and reports/<job id>.html (default ./torchscan-history-NAME/; "
                          "a rerun reuses the report pages there)");
  cl->history->add_flag("--table-only", o.table_only,
                        "print the table (or --json) only: write no file and fetch no report page");
  cl->history->add_flag("--force", o.force,
                        "replace a history.html or comparison.json in a folder `history` did not write, and fetch "
                        "every report page again");
  cl->history->add_option("--against", o.against,
                          "compare the newest result with the newest one at revision REV (--revision): "
                          "comparison.json and comparison.html in the folder");
  AddGateOptions(cl->history, cl);
}

// render and compare-reports: saved files, no daemon.
void AddLocalCommands(CLI::App& app, CommandLine* cl) {
  cl->render = app.add_subcommand("render", "render a saved report or comparison (no daemon)");
  cl->render->add_option("input", cl->input, "report or comparison JSON")->required();
  cl->render->add_option("-o,--output", cl->output, "output file (default stdout)");
  cl->render
      ->add_option("--format", cl->format,
                   report::RenderFormatList(" | ") +
                       " (gbench refuses a comparison whose check failed or "
                       "whose runs are not comparable: export its runs one by one with --run)")
      ->capture_default_str();
  cl->render->add_option("--run", cl->run,
                         "one run of a comparison, rendered as a plain report: before, after or its name");
  cl->render->add_flag("--details", cl->details,
                       "markdown: add the notes and collapsed <details> sections (environment, inputs, phase "
                       "timelines) after the comment-sized summary");

  cl->compare_reports = app.add_subcommand("compare-reports", "compare two saved reports, no output check");
  cl->compare_reports->add_option("before", cl->before, "before report JSON")->required();
  cl->compare_reports->add_option("after", cl->after, "after report JSON")->required();
  cl->compare_reports->add_option("--output", cl->output, "folder for comparison.json and comparison.html");
  cl->compare_reports->add_flag("--force", cl->force, "replace the comparison an earlier run left in --output");
  AddGateOptions(cl->compare_reports, cl);
}

// The job of measure, compare, example or calibrate (a job file with the flags beside it applied, or
// the flags), run on one daemon or each of several.
int RunJobFromCommandLine(const ClientContext& ctx, CommandLine& cl) {
  const bool measure = static_cast<bool>(*cl.measure), compare = static_cast<bool>(*cl.compare);
  if (*cl.calibrate) {
    absl::StatusOr<v1::JobSpec> spec = CalibrateSpecFromFlags(cl.calibrate_flags);
    if (!spec.ok()) return ReportError(spec.status());
    if (cl.calibrate_flags.measure.run.node == kAllNodes) return CalibrateEachNode(ctx, *spec, cl.job_options);
    if (ctx.daemons.size() > 1) return RunJobOnDaemons(ctx, *spec, cl.job_options);
    return RunJobCommand(ctx, *spec, cl.job_options);
  }
  const FileTransport files = (measure ? cl.measure_flags.model : cl.compare_flags.model).transport();
  CLI::App* sub = measure ? cl.measure : compare ? cl.compare : cl.example;
  absl::StatusOr<v1::JobSpec> spec = !cl.job_file.empty() ? LoadJobFileWithFiles(cl.job_file, files)
                                     : measure            ? MeasureSpecFromFlags(cl.measure_flags)
                                     : compare            ? CompareSpecFromFlags(cl.compare_flags)
                                                          : CompareSpecFromFlags(cl.example_flags);
  if (!spec.ok()) return ReportError(spec.status());
  if (!cl.job_file.empty()) {
    std::vector<std::string> overrides;
    const absl::Status applied =
        ApplyFlagsToJobFile(GivenFlags(sub), measure ? cl.measure_flags.run : cl.compare_flags.run,
                            compare ? &cl.compare_flags : nullptr, cl.job_file, &*spec, &overrides);
    if (!applied.ok()) return ReportError(applied);
    for (const std::string& o : overrides)
      std::fprintf(stderr, "torchscan-client: %s: overridden by the command line: %s\n", cl.job_file.c_str(),
                   o.c_str());
    cl.job_options.spec_from_flags = false;
  }
  if (ctx.daemons.size() > 1) return RunJobOnDaemons(ctx, *spec, cl.job_options);
  return RunJobCommand(ctx, *spec, cl.job_options);
}

int RunCommand(ClientContext& ctx, CommandLine& cl) {
  if (absl::Status s = ResolveClientContext(&ctx); !s.ok()) return ReportError(s);
  if (*cl.compare || *cl.compare_reports || *cl.history) {
    absl::StatusOr<FailOn> fail_on = ParseFailOn(cl.fail_on);
    if (!fail_on.ok()) return ReportError(fail_on.status());
    absl::StatusOr<GateOn> gate_on = ParseGateOn(cl.gate_on);
    if (!gate_on.ok()) return ReportError(gate_on.status());
    absl::StatusOr<double> threshold = ParseInstructionThreshold(cl.instruction_threshold);
    if (!threshold.ok()) return ReportError(threshold.status());
    ctx.gate = {*fail_on, *gate_on, *threshold};
    // A gate on instruction counts needs them: a compare counts without being told twice.
    if (*gate_on == GateOn::kInstructions && *cl.compare) cl.compare_flags.run.instructions = true;
  }
  if (*cl.info) return InfoCommand(ctx);
  if (*cl.measure || *cl.compare || *cl.example || *cl.calibrate) return RunJobFromCommandLine(ctx, cl);
  if (*cl.list) return ListJobsCommand(ctx, cl.state, cl.limit);
  if (*cl.show) return ShowJobCommand(ctx, cl.id);
  if (*cl.cancel) return CancelJobCommand(ctx, cl.id);
  if (*cl.watch) return WatchJobCommand(ctx, cl.id);
  if (*cl.fetch) return FetchJobCommand(ctx, cl.id, cl.output, cl.force);
  if (*cl.render) return RenderCommand(ctx, cl.input, cl.output, cl.format, cl.run, cl.details);
  if (*cl.compare_reports) return CompareReportsCommand(ctx, cl.before, cl.after, cl.output, cl.force);
  if (*cl.history) {
    cl.history_options.against_given = cl.history->count("--against") > 0;
    return HistoryCommand(ctx, cl.history_options);
  }
  return kExitBadInput;
}

}  // namespace
}  // namespace torchscan

int main(int argc, char** argv) {
  using namespace torchscan;
  ClientContext ctx;
  ctx.terminal = ::isatty(STDERR_FILENO) == 1;
  ctx.unicode = IsUtf8Locale(std::getenv("LC_ALL"), std::getenv("LC_CTYPE"), std::getenv("LANG"));
  CommandLine cl;

  CLI::App app{"torchscan-client: check an optimization of a PyTorch workload on real hardware"};
  app.footer(kNotes + ExitCodesFooter());
  app.require_subcommand(1);
  AddDaemonOptions(app, &ctx);
  cl.info = app.add_subcommand("info", "the daemon's hardware, software, devices and configuration");
  AddJobCommands(app, &cl);
  AddJobsCommands(app, &cl);
  AddHistoryCommand(app, &cl);
  AddLocalCommands(app, &cl);
  std::string daemon_action;
  CLI::App* daemon = app.add_subcommand(
      "daemon",
      "your personal resident torchscand, kept between commands so that jobs and history work: start, "
      "stop or status (no systemd needed)");
  daemon->add_option("action", daemon_action, "start | stop | status")
      ->required()
      ->check(CLI::IsMember({"start", "stop", "status"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    const std::string suggestion = SuggestForCommandLine(app, std::vector<std::string>(argv + 1, argv + argc));
    if (suggestion.empty()) return app.exit(e) == 0 ? 0 : kExitBadInput;
    std::fprintf(stderr, "%s\n", suggestion.c_str());
    return kExitBadInput;
  }
  if (*daemon) return DaemonCommand(ctx.torchscand, daemon_action);
  return RunCommand(ctx, cl);
}
