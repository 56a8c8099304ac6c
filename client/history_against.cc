#include "client/history_against.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "io/nearest_name.h"
#include "report/evidence_view.h"
#include "report/history_points.h"

namespace torchscan {
namespace {

// Distinct non-empty revisions of the points, newest first.
std::vector<std::string> PointRevisions(const std::vector<v1::Job>& jobs) {
  std::vector<std::string> revisions;
  for (const v1::Job& job : jobs) {
    const std::string& revision = job.spec().revision();
    if (report::IsHistoryPoint(job) && !revision.empty() &&
        std::find(revisions.begin(), revisions.end(), revision) == revisions.end())
      revisions.push_back(revision);
  }
  return revisions;
}

// A revision that starts with `revision` (a short hash for a long one), else a near spelling
// of a revision of four characters or more.
std::string Suggestion(const std::vector<std::string>& revisions, const std::string& revision) {
  for (const std::string& r : revisions)
    if (absl::StartsWith(r, revision)) return r;
  // NearestName allows two edits at least: any other revision of two or three characters.
  return revision.size() < 4 ? "" : NearestName(revision, revisions);
}

}  // namespace

absl::StatusOr<AgainstPoints> FindAgainstPoints(const std::vector<v1::Job>& jobs, const std::string& name,
                                                const std::string& revision) {
  const std::string flag = absl::StrCat("--against ", revision, ": ");
  AgainstPoints found;
  for (const v1::Job& job : jobs) {
    if (!report::IsHistoryPoint(job)) continue;
    if (found.newest == nullptr) found.newest = &job;
    if (job.spec().revision() == revision) {
      found.at_revision = &job;
      break;
    }
  }
  if (found.newest == nullptr)
    return absl::InvalidArgumentError(
        absl::StrCat(flag, "\"", name, "\" has no succeeded job with figures yet: nothing to compare"));
  if (found.at_revision == nullptr) {
    const std::vector<std::string> revisions = PointRevisions(jobs);
    if (revisions.empty())
      return absl::InvalidArgumentError(absl::StrCat(
          flag, "no job of \"", name, "\" records a revision; give one with --revision REV when you measure"));
    const std::vector<std::string> newest(revisions.begin(),
                                          revisions.begin() + std::min<size_t>(revisions.size(), kRevisionsListed));
    const std::string suggestion = Suggestion(revisions, revision);
    return absl::InvalidArgumentError(absl::StrCat(
        flag, "no succeeded job of \"", name, "\" was measured at that revision",
        suggestion.empty() ? "" : absl::StrCat("; did you mean ", suggestion, "?"),
        " (newest revisions: ", absl::StrJoin(newest, ", "), revisions.size() > newest.size() ? ", ..." : "", ")"));
  }
  if (found.at_revision == found.newest)
    return absl::InvalidArgumentError(absl::StrCat(flag, "the newest result of \"", name, "\" (job ",
                                                   found.newest->id(), ") is itself at revision ", revision,
                                                   ": nothing to compare; give an older revision"));
  return found;
}

absl::StatusOr<v1::BenchmarkReport> PointRun(const report::Evidence& evidence, const std::string& job_id) {
  if (const auto* report = std::get_if<v1::BenchmarkReport>(&evidence)) return *report;
  absl::StatusOr<v1::BenchmarkReport> after = report::SelectRun(evidence, "after");
  if (!after.ok())
    return absl::InvalidArgumentError(
        absl::StrCat("job ", job_id, ": its comparison's candidate run: ", after.status().message()));
  return after;
}

}  // namespace torchscan
