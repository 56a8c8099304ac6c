#include "client/local_commands.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "client/exit_codes.h"
#include "client/output_folder.h"
#include "client/result_files.h"
#include "client/run_job_commands.h"
#include "core/compare.h"
#include "io/file_io.h"
#include "report/escaping.h"
#include "report/evidence_view.h"
#include "report/render_by_format.h"
#include "report/report_json.h"

namespace torchscan {
namespace {

// `text` as one shell word: unchanged when it holds only safe characters, else single-quoted.
std::string ShellWord(const std::string& text) {
  const bool safe = !text.empty() && text.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-+=.,/:@%") == std::string::npos;
  return safe ? text : "'" + absl::StrReplaceAll(text, {{"'", "'\\''"}}) + "'";
}

}  // namespace

int RenderCommand(const ClientContext& ctx, const std::string& input, const std::string& output,
                  const std::string& format, const std::string& run, bool details) {
  if (details && format != "markdown")
    return ReportError(
        absl::InvalidArgumentError("--details: only with --format markdown (got --format " + format + ")"));
  report::RenderOptions options;
  options.color = ctx.color;
  options.details = details;
  absl::StatusOr<std::unique_ptr<report::Renderer>> renderer = report::RenderByFormat(format, options);
  if (!renderer.ok())
    return ReportError(absl::InvalidArgumentError("--format: " + std::string(renderer.status().message())));
  absl::StatusOr<report::Evidence> evidence = LoadEvidenceForRender(input);
  if (!evidence.ok()) return ReportError(evidence.status());
  // The two messages below quote the evidence (run names, the check's message): made terminal-safe.
  if (!run.empty()) {
    absl::StatusOr<v1::BenchmarkReport> one = report::SelectRun(*evidence, run);
    if (!one.ok())
      return ReportError(absl::InvalidArgumentError(
          report::TerminalSafe(absl::StrCat("--run ", run, ": ", input, ": ", one.status().message()))));
    *evidence = *std::move(one);
  }
  if (absl::Status accepts = (*renderer)->Accepts(*evidence); !accepts.ok()) {
    const std::string one_run = absl::StrCat("torchscan-client render ", ShellWord(input), " --run before --format ",
                                             format, " (then --run after)");
    return ReportError(absl::Status(accepts.code(), report::TerminalSafe(absl::StrCat(
                                                        "--format ", format, ": ", accepts.message(), ": ", one_run))));
  }
  const std::string text = (*renderer)->Render(*evidence);
  if (output.empty() || output == "-") {
    std::fputs(text.c_str(), stdout);
    return kExitOk;
  }
  if (absl::Status s = WriteFileAtomic(output, text); !s.ok())
    return ReportError(absl::InvalidArgumentError("-o: " + std::string(s.message())));
  std::fprintf(stderr, "wrote %s\n", output.c_str());
  return kExitOk;
}

int CompareReportsCommand(const ClientContext& ctx, const std::string& before_path, const std::string& after_path,
                          const std::string& output_dir, bool force) {
  if (!output_dir.empty())
    if (absl::Status s = CheckOutputFolder(output_dir, EvidenceFiles(true), force); !s.ok()) return ReportError(s);
  absl::StatusOr<v1::BenchmarkReport> before = LoadReportForCompare(before_path);
  if (!before.ok()) return ReportError(before.status());
  absl::StatusOr<v1::BenchmarkReport> after = LoadReportForCompare(after_path);
  if (!after.ok()) return ReportError(after.status());
  v1::OutputCheck not_provided;
  not_provided.set_status(v1::OutputCheck::not_provided);
  not_provided.set_message("compared from saved reports: no output check was run");
  v1::JobResult result;
  *result.mutable_comparison() = CompareReports(*before, *after, not_provided);
  if (!output_dir.empty()) {
    std::string json_path;
    if (absl::Status s = WriteEvidence(result, output_dir, &json_path); !s.ok()) return ReportError(s);
    std::fprintf(stderr, "wrote %s and its .html\n", json_path.c_str());
  }
  std::fputs(Summarize(ctx, result).c_str(), stdout);
  return ResultExitCode(result, ctx.gate);
}

}  // namespace torchscan
