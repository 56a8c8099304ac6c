// `torchscan-client history NAME --against REV`: which two points of a history are compared,
// and which run of a job's evidence a point stands for. Pure: no gRPC, no I/O.
//
// A point is a job report::IsHistoryPoint accepts (a succeeded measure or compare job with
// figures). The newest point is compared with the newest point whose JobSpec.revision is REV
// (exactly; no prefix matching), by the guide's rules (core/compare.h CompareReports, as
// compare-reports does): REV's point is "before", the newest "after".
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/service.pb.h"
#include "report/report_json.h"

namespace torchscan {

// How many revisions an unknown REV's message lists.
inline constexpr int kRevisionsListed = 5;

struct AgainstPoints {
  const v1::Job* at_revision = nullptr;  // the newest point at REV: the comparison's "before"
  const v1::Job* newest = nullptr;       // the newest point: its "after"
};

// Among `jobs` (newest first; pointers into it). InvalidArgument naming --against and `name`:
//  - no point at all ("NAME has no succeeded job with figures yet");
//  - no point at `revision`: names the newest kRevisionsListed distinct revisions of the
//    points (or says that no point has one), and "did you mean X?" for a revision that starts
//    with REV or is a near spelling of it (io/nearest_name.h);
//  - the newest point is itself at `revision`: nothing to compare (its job id is named).
absl::StatusOr<AgainstPoints> FindAgainstPoints(const std::vector<v1::Job>& jobs, const std::string& name,
                                                const std::string& revision);

// The run a point stands for in its job's evidence: a measure job's report, or a compare
// job's candidate ("after") run. InvalidArgument (naming `job_id`) when the comparison's
// candidate run cannot be selected.
absl::StatusOr<v1::BenchmarkReport> PointRun(const report::Evidence& evidence, const std::string& job_id);

}  // namespace torchscan
