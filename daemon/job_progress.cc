#include "daemon/job_progress.h"

#include <optional>

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "core/timestamp.h"
#include "daemon/result_summary.h"
#include "spec/printable_text.h"

namespace torchscan::daemon {

void RecordPhase(JobRecords& records, const std::string& id, const std::string& line) {
  records.mu().AssertHeld();
  const std::string phase = spec::PrintableLine(line, kMaxPhaseBytes);
  v1::Job& job = *records.Find(id);
  if (!records.BeginPhase(job, phase)) {
    if (job.phase() != kPhasesCapped)
      spdlog::warn("job {}: more than {} phases; later ones are not kept", id, kMaxJobPhases);
    job.set_phase(kPhasesCapped);
    return;
  }
  spdlog::info("job {} phase {}", id, phase);
  job.set_phase(phase);
  job.set_blocks_done(0);
  records.NotifyChanged();
}

void RecordBlocks(JobRecords& records, const std::string& id, int64_t blocks) {
  records.mu().AssertHeld();
  v1::Job& job = *records.Find(id);
  job.set_blocks_done(blocks);
  records.RefreshTimeline(job);
  records.NotifyChanged();
}

void RecordEnd(JobRecords& records, const std::string& id, JobRunOutcome& outcome, v1::Job::State killed_state) {
  records.mu().AssertHeld();
  v1::Job& job = *records.Find(id);
  job.set_worker_pid(0);
  job.set_finished_at(NowRfc3339());
  records.EndPhases(job);
  if (outcome.state == v1::Job::succeeded) {
    job.set_state(v1::Job::succeeded);
    job.set_phase("done");
    records.CompleteResult(id, job.timeline(), &outcome.result);
    if (std::optional<v1::ResultSummary> summary = SummaryOfResult(outcome.result)) {
      *job.mutable_summary() = *summary;
      job.mutable_summary()->set_node(job.node());
    }
    if (outcome.result.has_comparison()) {
      const v1::Comparison& c = outcome.result.comparison();
      job.set_latency_change(v1::Comparison::LatencyChange_Name(c.latency_change()));
      job.set_output_check(v1::OutputCheck::Status_Name(c.output_check().status()));
    }
    spdlog::info(
        "job {} succeeded{}", id,
        job.latency_change().empty() ? "" : absl::StrCat(": ", job.latency_change(), ", check ", job.output_check()));
  } else {
    job.set_state(outcome.killed ? killed_state : v1::Job::failed);
    job.set_error(spec::PrintableLine(outcome.error, kMaxErrorBytes));
    spdlog::info("job {} {}: {}", id, v1::Job::State_Name(job.state()), job.error());
  }
  records.Changed(job, true);
  records.RefreshRecordCache(false);
}

}  // namespace torchscan::daemon
