#include "experiment/compiled_flops.h"

#include <set>
#include <string>

#include <google/protobuf/util/message_differencer.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace torchscan::experiment {
namespace {

constexpr const char* kAchieved = "achieved_flops_per_s";

// Replaces the report's achieved_flops_per_s total (appends one when there is none).
void RecomputeAchieved(v1::BenchmarkReport* report) {
  for (v1::MetricResult& total : *report->mutable_totals())
    if (total.name() == kAchieved) {
      total = AchievedFlops(*report);
      return;
    }
  *report->add_totals() = AchievedFlops(*report);
}

bool SameInputs(const v1::BenchmarkReport& a, const v1::BenchmarkReport& b) {
  if (a.input_metadata().tensors_size() != b.input_metadata().tensors_size()) return false;
  for (int i = 0; i < a.input_metadata().tensors_size(); ++i)
    if (!google::protobuf::util::MessageDifferencer::Equals(a.input_metadata().tensors(i),
                                                            b.input_metadata().tensors(i)))
      return false;
  return true;
}

// The file a report's model came from ("linear.pt"), or its model's name for a built-in.
std::string ModelOf(const v1::BenchmarkReport& report) {
  const auto source = report.workload().find("model_source");
  if (source == report.workload().end()) {
    const auto model = report.workload().find("model");
    return model == report.workload().end() ? "the other side" : model->second;
  }
  std::string path = source->second.substr(0, source->second.find(" ("));
  return path.substr(path.find_last_of('/') + 1);
}

}  // namespace

void MarkOpaqueFlops(const std::string& why, const std::string& without_markers, v1::OperatorProfile* profile) {
  if (why.empty()) return;
  std::set<std::string> markers;
  for (const v1::OperatorStat& op : profile->operators())
    if (!absl::StrContains(op.name(), "::")) markers.insert(op.name());
  v1::MetricResult* flops = profile->mutable_flops_per_call();
  flops->set_complete(false);
  // The observers list each operator without formula ("NAME: no FLOP formula (...)"); a marker's
  // line would repeat, kernel by kernel, what the one below says.
  google::protobuf::RepeatedPtrField<std::string> kept;
  for (const std::string& line : flops->diagnostics())
    if (!markers.count(line.substr(0, line.find(": no FLOP formula")))) *kept.Add() = line;
  flops->mutable_diagnostics()->Swap(&kept);
  std::string said = why;
  if (markers.empty()) {
    if (!without_markers.empty()) absl::StrAppend(&said, "; ", without_markers);
  } else {
    const std::string count = absl::StrCat(markers.size(), markers.size() == 1 ? " kernel marker" : " kernel markers");
    absl::StrAppend(&said, "; the profile shows the compiled code's ", count,
                    " (operators named without a namespace, e.g. ", *markers.begin(),
                    ") with their calls and time, not their FLOPs");
  }
  flops->add_diagnostics(absl::StrCat("a lower bound: ", said));
  profile->set_note(profile->note().empty() ? said : absl::StrCat(profile->note(), "; ", said));
}

bool CarryFlops(const v1::OutputCheck& check, bool before_opaque, bool after_opaque, v1::BenchmarkReport* before,
                v1::BenchmarkReport* after) {
  if (check.status() != v1::OutputCheck::passed || before_opaque == after_opaque || !SameInputs(*before, *after))
    return false;
  const v1::BenchmarkReport& from = before_opaque ? *after : *before;
  v1::BenchmarkReport* to = before_opaque ? before : after;
  const v1::MetricResult& source = from.profile().flops_per_call();
  if (!source.complete() || !source.has_value()) return false;
  v1::MetricResult* flops = to->mutable_profile()->mutable_flops_per_call();
  const double seen = flops->has_value() ? flops->value() : 0;
  flops->set_value(source.value());
  flops->set_complete(true);
  flops->clear_diagnostics();
  flops->add_diagnostics(absl::StrCat(
      "carried from the ", from.name(), " (", ModelOf(from),
      "), the same model as its outputs matched this one's at the output check on the same inputs: the model's FLOPs, "
      "not what the compiled kernels executed (the profile saw ",
      seen, " FLOP per call in the ATen operators it could see)"));
  RecomputeAchieved(to);
  return true;
}

v1::MetricResult AchievedFlops(const v1::BenchmarkReport& report) {
  v1::MetricResult m;
  m.set_name(kAchieved);
  m.set_unit("FLOP/s");
  m.set_method("profile flops_per_call / timing latency_median");
  m.set_scope("one call on resident inputs");
  const v1::MetricResult& flops = report.profile().flops_per_call();
  const double median = report.timing().summary().median_s();
  if (!flops.has_value() || !(median > 0)) {
    m.set_complete(false);
    m.add_diagnostics("unknown: needs FLOPs per call and a timing median");
    return m;
  }
  m.set_value(flops.value() / median);
  m.set_complete(flops.complete());
  if (!flops.complete()) m.add_diagnostics("a lower bound: the FLOP count is incomplete");
  return m;
}

}  // namespace torchscan::experiment
