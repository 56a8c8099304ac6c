#include "client/history_command.h"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/exit_codes.h"
#include "client/history_against.h"
#include "client/jobs_subcommands.h"
#include "client/output_folder.h"
#include "client/report_cache.h"
#include "client/run_job_commands.h"
#include "core/compare.h"
#include "io/file_io.h"
#include "io/nearest_name.h"
#include "io/proto_json.h"
#include "proto/spec_limits.h"
#include "report/history_html.h"
#include "report/history_points.h"
#include "report/history_text.h"
#include "spec/job_spec.h"

namespace torchscan {
namespace {

bool IsFile(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// A job id fit to name a file: the daemon's "job-000123"; nothing that could lead elsewhere.
bool SafeFileName(const std::string& id) {
  return !id.empty() && id.front() != '.' &&
         id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == std::string::npos;
}

HistoryPageSource PagesOf(DaemonClient& client) {
  return [&client](const v1::HistoryRequest& request) { return client.History(request); };
}

// Makes sure DIR/reports/<id>.json and .html hold job's evidence: reused when both are there
// and `refetch` is false (loaded into `evidence` when it is not null; a JSON file that no
// longer loads is fetched again), else fetched and written. Sets `fetched`.
absl::Status EnsureReportFiles(DaemonClient& client, const v1::Job& job, const std::string& reports_dir, bool refetch,
                               report::Evidence* evidence, bool* fetched) {
  if (!SafeFileName(job.id())) return absl::InvalidArgumentError("job id \"" + job.id() + "\" cannot name a file");
  const std::string stem = reports_dir + "/" + job.id();
  if (!refetch && IsFile(stem + ".json") && IsFile(stem + ".html")) {
    *fetched = false;
    if (evidence == nullptr) return absl::OkStatus();
    absl::StatusOr<report::Evidence> loaded = report::LoadEvidence(stem + ".json");
    if (loaded.ok()) {
      *evidence = *std::move(loaded);
      return absl::OkStatus();
    }
  }
  *fetched = true;
  absl::StatusOr<v1::JobResult> result = client.FetchResult(job.id());
  if (!result.ok()) return result.status();
  if (absl::Status s = WriteEvidenceFiles(*result, stem); !s.ok()) return s;
  if (evidence != nullptr) *evidence = EvidenceOf(*result);
  return absl::OkStatus();
}

// The message for a name with no jobs, with a label that exists when one is close.
absl::Status NoJobsNamed(DaemonClient& client, const std::string& name) {
  std::string suggestion;
  v1::ListJobsRequest request;
  request.set_limit(kMaxHistoryPageSize);
  if (absl::StatusOr<v1::ListJobsResponse> jobs = client.ListJobs(request); jobs.ok()) {
    std::vector<std::string> labels;
    std::set<std::string> seen;
    for (const v1::Job& j : jobs->jobs())
      if (!j.spec().label().empty() && seen.insert(j.spec().label()).second) labels.push_back(j.spec().label());
    suggestion = NearestName(name, labels);
  }
  return absl::NotFoundError(
      absl::StrCat("history: no job is named \"", name, "\" on ", client.address(),
                   suggestion.empty() ? "" : absl::StrCat("; did you mean \"", suggestion, "\"?"),
                   " (a job's name is its --label: measure --label NAME ...)"));
}

// --against: the newest point compared with REV's, written into `dir`; prints and gates.
int CompareAgainst(const ClientContext& ctx, DaemonClient& client, const std::string& name, const AgainstPoints& points,
                   const std::string& dir, bool print_table_first) {
  v1::BenchmarkReport runs[2];
  const v1::Job* jobs[2] = {points.at_revision, points.newest};
  for (int i = 0; i < 2; ++i) {
    report::Evidence evidence;
    bool fetched = false;
    if (absl::Status s = EnsureReportFiles(client, *jobs[i], dir + "/reports", false, &evidence, &fetched); !s.ok())
      return ReportError(absl::Status(s.code(), absl::StrCat("--against: job ", jobs[i]->id(), ": ", s.message())));
    absl::StatusOr<v1::BenchmarkReport> run = PointRun(evidence, jobs[i]->id());
    if (!run.ok()) return ReportError(run.status());
    runs[i] = *std::move(run);
    // Named by what the reader chose them by, not "measurement" / "candidate".
    runs[i].set_name(absl::StrCat("revision ", jobs[i]->spec().revision().empty() ? "none" : jobs[i]->spec().revision(),
                                  " (", jobs[i]->id(), ")"));
  }
  v1::OutputCheck not_provided;
  not_provided.set_status(v1::OutputCheck::not_provided);
  not_provided.set_message(absl::StrCat("compared from the history of \"", name, "\": job ", jobs[0]->id(),
                                        " (revision ", jobs[0]->spec().revision(), ") and job ", jobs[1]->id(),
                                        " (revision ", jobs[1]->spec().revision(), "); no output check was run"));
  v1::JobResult result;
  *result.mutable_comparison() = CompareReports(runs[0], runs[1], not_provided);
  std::string json_path;
  if (absl::Status s = WriteEvidence(result, dir, &json_path); !s.ok()) return ReportError(s);
  std::fprintf(stderr, "wrote %s and its .html\n", json_path.c_str());
  if (print_table_first) std::fputs("\n", stdout);
  std::fputs(Summarize(ctx, result).c_str(), stdout);
  return ResultExitCode(result, ctx.gate);
}

// The succeeded jobs of `name`, newest first, as far as the newest point at `revision` (all of
// them when none is there): every job --against may need, not only the newest --limit.
absl::StatusOr<std::vector<v1::Job>> SearchRevision(DaemonClient& client, const std::string& name,
                                                    const std::string& device, const std::string& revision) {
  v1::HistoryRequest succeeded;
  succeeded.set_name(name);
  succeeded.set_device(device);
  succeeded.add_states(v1::Job::succeeded);
  absl::StatusOr<v1::HistoryResponse> found = ReadHistory(PagesOf(client), succeeded, 0, [&](const v1::Job& job) {
    return report::IsHistoryPoint(job) && job.spec().revision() == revision;
  });
  if (!found.ok()) return found.status();
  return std::vector<v1::Job>(found->jobs().begin(), found->jobs().end());
}

// Writes DIR/history.html of `view` (its report_href set here: the points whose report pages
// DIR/reports/ holds, fetched or reused, collected in `linked`); says on stderr what it wrote.
// Pages another daemon wrote there (DIR/reports/daemon.txt, client/report_cache.h) are removed
// first, so that none is reused, here or by --against.
absl::Status WriteHistoryPage(DaemonClient& client, const std::string& dir, bool refetch, report::HistoryView* view,
                              std::set<std::string>* linked) {
  std::error_code ec;
  std::filesystem::create_directories(dir + "/reports", ec);
  if (ec) return absl::InvalidArgumentError("--output: cannot create " + dir + "/reports: " + ec.message());
  // Job ids restart on each daemon: pages another daemon wrote must not be reused (nor by --against).
  const absl::StatusOr<v1::DaemonInfo> info = client.Info();
  bool cleared = false;
  if (absl::Status s = ClaimReportCache(dir + "/reports",
                                        ReportCacheOwner(client.address(), info.ok() ? &*info : nullptr), &cleared);
      !s.ok())
    return s;
  if (cleared)
    std::fprintf(stderr,
                 "torchscan-client: history: %s/reports held report pages of another daemon (or of an unknown one; "
                 "job ids restart on each): fetching every page again from %s\n",
                 dir.c_str(), client.address().c_str());
  int fetched_count = 0;
  for (const v1::Job& job : view->jobs) {
    if (!report::IsHistoryPoint(job)) continue;
    bool fetched = false;
    if (absl::Status s = EnsureReportFiles(client, job, dir + "/reports", refetch, nullptr, &fetched); !s.ok()) {
      std::fprintf(stderr, "torchscan-client: history: job %s is listed without its report: %s\n", job.id().c_str(),
                   std::string(s.message()).c_str());
      continue;
    }
    linked->insert(job.id());
    fetched_count += fetched ? 1 : 0;
  }
  view->report_href = [linked](const v1::Job& job) {
    return linked->count(job.id()) > 0 ? "reports/" + job.id() + ".html" : std::string();
  };
  const std::string page = dir + "/" + HistoryPageFile();
  if (absl::Status s = WriteFileAtomic(page, report::RenderHistoryHtml(*view)); !s.ok())
    return absl::InvalidArgumentError("--output: " + std::string(s.message()));
  std::fprintf(stderr, "wrote %s (%zu report pages in %s/reports: %d fetched, %zu reused)\n", page.c_str(),
               linked->size(), dir.c_str(), fetched_count, linked->size() - fetched_count);
  return absl::OkStatus();
}

// --against's two points ran on the same devices: a GPU's latency against a CPU's is no
// before/after of one change.
absl::Status SameDevices(const AgainstPoints& points) {
  const std::vector<std::string> then = spec::JobDeviceNames(points.at_revision->spec());
  const std::vector<std::string> now = spec::JobDeviceNames(points.newest->spec());
  if (then == now) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("--against: job ", points.at_revision->id(), " ran on ",
                                                 absl::StrJoin(then, ", "), " but the newest, job ",
                                                 points.newest->id(), ", on ", absl::StrJoin(now, ", "),
                                                 "; latencies of two devices are not a before and after: add --device ",
                                                 now.front(), " to follow one device's history"));
}

int Validate(const HistoryOptions& options, v1::HistoryRequest* request) {
  if (options.name.empty())
    return ReportError(absl::InvalidArgumentError("history: NAME is empty; give the --label of the jobs to follow"));
  if (options.limit < 0)
    return ReportError(absl::InvalidArgumentError(absl::StrCat(
        "--limit: ", options.limit, " is negative; give the number of newest jobs to show, or 0 for every job")));
  if (options.against_given && options.against.empty())
    return ReportError(absl::InvalidArgumentError(
        "--against: the revision is empty; give the --revision of the job to compare the newest result with"));
  if (options.table_only && (!options.output_dir.empty() || options.against_given))
    return ReportError(absl::InvalidArgumentError(absl::StrCat("--table-only: writes no file, but ",
                                                               options.against_given ? "--against" : "--output",
                                                               " asks for files; leave out one of them")));
  request->set_name(options.name);
  request->set_device(options.device);
  for (const std::string& word : options.states) {
    absl::StatusOr<v1::Job::State> state = ParseJobState(word);
    if (!state.ok()) return ReportError(state.status());
    request->add_states(*state);
  }
  return kExitOk;
}

}  // namespace

int HistoryCommand(const ClientContext& ctx, const HistoryOptions& options) {
  v1::HistoryRequest request;
  if (int bad = Validate(options, &request); bad != kExitOk) return bad;
  if (options.against.empty() && ctx.gate.fail_on != FailOn::kNever)
    return ReportError(absl::InvalidArgumentError(
        "--fail-on: only with --against REV: a history has no verdict, a comparison with REV's result has"));
  const std::string dir = options.output_dir.empty() ? DefaultHistoryFolder(options.name) : options.output_dir;
  std::vector<std::string> files = {HistoryPageFile()};
  if (!options.against.empty())
    for (const std::string& f : EvidenceFiles(true)) files.push_back(f);
  const bool history_folder = IsFile(dir + "/" + HistoryPageFile());
  if (!options.table_only)
    if (absl::Status s = CheckOutputFolder(dir, files, options.force || history_folder); !s.ok()) return ReportError(s);

  absl::StatusOr<Connection> connection = ConnectResident(ctx, "history");
  if (!connection.ok()) return ReportError(connection.status());
  DaemonClient& client = *connection->client;
  absl::StatusOr<v1::HistoryResponse> history = ReadHistory(PagesOf(client), request, options.limit);
  if (!history.ok()) return ReportError(history.status());
  if (history->jobs().empty()) {
    v1::HistoryRequest any;
    any.set_name(options.name);
    absl::StatusOr<v1::HistoryResponse> one = ReadHistory(PagesOf(client), any, 1);
    if (!one.ok()) return ReportError(one.status());
    if (one->jobs().empty()) return ReportError(NoJobsNamed(client, options.name));
    std::fprintf(stderr, "torchscan-client: history: \"%s\" has jobs, but none in the --state given\n",
                 options.name.c_str());
  }
  // --against is checked before any file is written.
  std::vector<v1::Job> searched;
  AgainstPoints against;
  if (!options.against.empty()) {
    absl::StatusOr<std::vector<v1::Job>> found = SearchRevision(client, options.name, options.device, options.against);
    if (!found.ok()) return ReportError(found.status());
    searched = *std::move(found);
    absl::StatusOr<AgainstPoints> points = FindAgainstPoints(searched, options.name, options.against);
    if (!points.ok()) return ReportError(points.status());
    against = *points;
    if (absl::Status s = SameDevices(against); !s.ok()) return ReportError(s);
  }

  report::HistoryView view;
  view.name = options.name;
  view.source = client.address();
  view.jobs.assign(history->jobs().begin(), history->jobs().end());
  std::set<std::string> linked;
  if (!options.table_only)
    if (absl::Status s = WriteHistoryPage(client, dir, options.force, &view, &linked); !s.ok()) return ReportError(s);
  if (!ctx.json) std::fputs(report::RenderHistoryText(view, ctx.unicode).c_str(), stdout);
  else if (options.against.empty()) std::printf("%s\n", ToJson(*history).c_str());
  if (options.against.empty()) return kExitOk;
  return CompareAgainst(ctx, client, options.name, against, dir, !ctx.json);
}

}  // namespace torchscan
