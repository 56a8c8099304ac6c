#include "worker/job_options.h"

#include "proto/spec_limits.h"
#include "spec/job_spec.h"

namespace torchscan::worker {
namespace {

template <typename T>
T OrDefault(T value, T fallback) {
  return value > 0 ? value : fallback;
}

}  // namespace

absl::StatusOr<experiment::ExperimentOptions> ExperimentOptionsFor(const v1::JobSpec& spec,
                                                                   const std::string& rss_child_path) {
  const v1::MeasurementOptions& m = spec.options();
  if (absl::Status s = spec::ValidateMeasurementOptions(m); !s.ok()) return s;

  experiment::ExperimentOptions o;
  o.timing.min_run_time_s = OrDefault(m.min_run_time_s(), kDefaultMinRunTimeS);
  o.timing.min_blocks = OrDefault(m.min_blocks(), kDefaultMinBlocks);
  o.timing.max_run_time_s = m.max_run_time_s();
  o.intra_op_threads = OrDefault(m.intra_op_threads(), kDefaultIntraOpThreads);
  o.inter_op_threads = OrDefault(m.inter_op_threads(), kDefaultInterOpThreads);
  o.profile_calls = OrDefault(m.profile_calls(), kDefaultProfileCalls);
  o.skip_diagnostics = m.skip_diagnostics();
  if (spec.has_calibrate()) {
    // A/A timing only: no output check (both sides are one workload), no diagnostic pass
    // and no RSS child, whatever the options ask.
    o.skip_diagnostics = true;
    o.skip_check = true;
    if (spec.calibrate().rounds() > 0) o.rounds = spec.calibrate().rounds();
    return o;
  }
  o.rss = m.rss();
  o.instructions = m.instructions();
  o.instruction_calls = OrDefault(m.instruction_calls(), kDefaultInstructionCalls);
  o.rss_child_path = rss_child_path;
  if (o.instructions && rss_child_path.empty())
    return absl::InvalidArgumentError(
        "spec.options.instructions: needs the child to count in; run the worker with --rss-child PATH");
  if (o.rss && rss_child_path.empty())
    return absl::InvalidArgumentError("spec.options.rss: needs the RSS child; run the worker with --rss-child PATH");
  if (!spec.has_compare()) return o;

  const v1::CompareJob& compare = spec.compare();
  o.reverse = compare.reverse();
  const v1::OutputCheckSpec& check = compare.check();
  if (absl::Status s = spec::ValidateOutputCheck(check); !s.ok()) return s;
  if (check.has_declarative()) {
    const v1::DeclarativeCheck& d = check.declarative();
    o.check.rtol = d.rtol();
    o.check.atol = d.atol();
    o.check.require_finite = !d.allow_non_finite();
    if (d.compare_dtype() != v1::DeclarativeCheck::as_output)
      o.check.compare_dtype = v1::DeclarativeCheck::CompareDType_Name(d.compare_dtype());
  }
  o.skip_check = check.kind_case() == v1::OutputCheckSpec::kSkip && check.skip();
  if (check.has_torchscript()) o.check_module = check.torchscript();
  if (compare.rounds() > 0) o.rounds = compare.rounds();
  if (compare.smallest_change() > 0) o.smallest_change = compare.smallest_change();
  if (compare.max_time_s() > 0) o.max_time_s = compare.max_time_s();
  if (compare.max_other_cpu_share() > 0) o.max_other_cpu_share = compare.max_other_cpu_share();
  o.decide = !compare.fixed_length();
  return o;
}

}  // namespace torchscan::worker
