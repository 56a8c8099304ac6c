#include "report/evidence_view.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/number_format.h"

namespace torchscan::report {
namespace {

using google::protobuf::FieldDescriptor;

// `comparison_label`: the label of the comparison holding the run ("" for a lone report).
RunView MakeRun(std::string role, const v1::BenchmarkReport& report, const std::string& comparison_label) {
  std::string name = report.name().empty() ? role : report.name();
  std::string title = !report.label().empty() && report.label() != comparison_label ? report.label() : name;
  if (!report.model().empty() && report.model() != title) absl::StrAppend(&title, " (", report.model(), ")");
  return RunView{std::move(role), std::move(name), std::move(title), &report};
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string ValueText(const google::protobuf::Message& message, const FieldDescriptor* field, int index) {
  const google::protobuf::Reflection* r = message.GetReflection();
  const bool repeated = field->is_repeated();
  auto number = [&](double value) {
    if (EndsWith(field->name(), "_bytes")) return FormatBytes(value);
    if (EndsWith(field->name(), "_s")) return FormatSeconds(value);
    return FormatNumber(value);
  };
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      return repeated ? r->GetRepeatedString(message, field, index) : r->GetString(message, field);
    case FieldDescriptor::CPPTYPE_BOOL:
      return (repeated ? r->GetRepeatedBool(message, field, index) : r->GetBool(message, field)) ? "yes" : "no";
    case FieldDescriptor::CPPTYPE_ENUM:
      return repeated ? r->GetRepeatedEnum(message, field, index)->name() : r->GetEnum(message, field)->name();
    case FieldDescriptor::CPPTYPE_INT32:
      return number(repeated ? r->GetRepeatedInt32(message, field, index) : r->GetInt32(message, field));
    case FieldDescriptor::CPPTYPE_INT64:
      return number(
          static_cast<double>(repeated ? r->GetRepeatedInt64(message, field, index) : r->GetInt64(message, field)));
    case FieldDescriptor::CPPTYPE_UINT32:
      return number(repeated ? r->GetRepeatedUInt32(message, field, index) : r->GetUInt32(message, field));
    case FieldDescriptor::CPPTYPE_UINT64:
      return number(
          static_cast<double>(repeated ? r->GetRepeatedUInt64(message, field, index) : r->GetUInt64(message, field)));
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return number(repeated ? r->GetRepeatedDouble(message, field, index) : r->GetDouble(message, field));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return number(repeated ? r->GetRepeatedFloat(message, field, index) : r->GetFloat(message, field));
    case FieldDescriptor::CPPTYPE_MESSAGE: break;
  }
  return "";
}

}  // namespace

std::vector<RunView> Runs(const Evidence& evidence) {
  if (const auto* report = std::get_if<v1::BenchmarkReport>(&evidence)) return {MakeRun("report", *report, "")};
  const auto& comparison = std::get<v1::Comparison>(evidence);
  return {MakeRun("before", comparison.before(), comparison.label()),
          MakeRun("after", comparison.after(), comparison.label())};
}

namespace {

// What differs between the runs besides their files, which the run titles name: the changed
// settings but the model's revision and source, "channels_last false \u2192 true", at most
// kTitleChanges of them ("+N more" after); "" when nothing else changed.
constexpr int kTitleChanges = 3;
std::string TitleChanges(const v1::Comparison& c) {
  std::vector<std::string> parts;
  int more = 0;
  for (const v1::SettingChange& s : c.changed_settings()) {
    absl::string_view name = s.name();
    if (name == "workload.model_revision" || name == "workload.model_source") continue;
    absl::ConsumePrefix(&name, "workload.");
    if (static_cast<int>(parts.size()) == kTitleChanges) {
      ++more;
      continue;
    }
    parts.push_back(absl::StrCat(name, " ", s.before().empty() ? "(none)" : s.before(), " \u2192 ",
                                 s.after().empty() ? "(none)" : s.after()));
  }
  if (more > 0) parts.push_back(absl::StrCat("+", more, " more"));
  return absl::StrJoin(parts, ", ");
}

}  // namespace

std::string EvidenceTitle(const Evidence& evidence) {
  const std::vector<RunView> runs = Runs(evidence);
  const v1::Comparison* c = ComparisonOf(evidence);
  if (c == nullptr) return runs[0].title;
  const std::string changes = TitleChanges(*c);
  return absl::StrCat(c->label().empty() ? "" : c->label() + ": ", runs[0].title, " \u2192 ", runs[1].title,
                      changes.empty() ? "" : " (" + changes + ")");
}

const v1::Comparison* ComparisonOf(const Evidence& evidence) { return std::get_if<v1::Comparison>(&evidence); }

std::vector<TimelineView> Timelines(const Evidence& evidence) {
  std::vector<TimelineView> timelines;
  const v1::Comparison* c = ComparisonOf(evidence);
  if (c != nullptr && !c->timeline().spans().empty()) timelines.push_back({"", &c->timeline()});
  for (const RunView& run : Runs(evidence)) {
    if (run.report->timeline().spans().empty()) continue;
    timelines.push_back({c != nullptr ? absl::StrCat(run.role, ": ", run.name) : "", &run.report->timeline()});
  }
  const v1::Timeline& job = c != nullptr ? c->job_timeline() : std::get<v1::BenchmarkReport>(evidence).job_timeline();
  if (!job.spans().empty()) timelines.push_back({"the job, as torchscand saw it", &job, true});
  return timelines;
}

absl::StatusOr<v1::BenchmarkReport> SelectRun(const Evidence& evidence, std::string_view run) {
  const v1::Comparison* c = ComparisonOf(evidence);
  if (c == nullptr)
    return absl::InvalidArgumentError(
        "the file holds a single report, not a comparison: render it without choosing a run");
  const std::vector<RunView> runs = Runs(evidence);
  for (const RunView& view : runs)
    if (view.role == run) return *view.report;
  std::vector<const RunView*> named;
  for (const RunView& view : runs)
    if (view.name == run) named.push_back(&view);
  if (named.size() == 1) return *named[0]->report;
  const std::string quoted = absl::StrCat("\"", std::string(run), "\"");
  if (named.size() > 1)
    return absl::InvalidArgumentError(absl::StrCat("both runs are named ", quoted, ": choose before or after"));
  return absl::InvalidArgumentError(absl::StrCat("no run named ", quoted, "; choose before (\"", runs[0].name,
                                                 "\") or after (\"", runs[1].name, "\")"));
}

Withheld WithheldBecause(const v1::Comparison& comparison) {
  if (comparison.output_check().status() == v1::OutputCheck::failed) return Withheld::kCheckFailed;
  if (!comparison.compatibility().compatible()) return Withheld::kIncompatible;
  return Withheld::kNone;
}

const char* WithheldText(Withheld withheld) {
  switch (withheld) {
    case Withheld::kCheckFailed: return "the output check failed";
    case Withheld::kIncompatible: return "the runs are not comparable";
    case Withheld::kNone: break;
  }
  return "";
}

std::string MismatchesText(const v1::Compatibility& compatibility) {
  std::vector<std::string> parts;
  for (const v1::Mismatch& m : compatibility.mismatches())
    parts.push_back(absl::StrCat(m.field(), " (", m.before(), " vs ", m.after(), ")"));
  return absl::StrJoin(parts, ", ");
}

std::string WithheldDetail(const v1::Comparison& comparison) {
  std::vector<std::string> reasons;
  const v1::OutputCheck& check = comparison.output_check();
  if (check.status() == v1::OutputCheck::failed)
    reasons.push_back(absl::StrCat(WithheldText(Withheld::kCheckFailed),
                                   check.message().empty() ? "" : " (" + check.message() + ")"));
  if (!comparison.compatibility().compatible()) {
    const std::string mismatches = MismatchesText(comparison.compatibility());
    reasons.push_back(absl::StrCat(WithheldText(Withheld::kIncompatible), " (",
                                   mismatches.empty() ? "mismatches not named" : mismatches, ")"));
  }
  return absl::StrJoin(reasons, "; ");
}

const char* PairedClaimText(v1::PairedEvidence::Claim claim) {
  switch (claim) {
    case v1::PairedEvidence::faster: return "faster";
    case v1::PairedEvidence::slower: return "slower";
    case v1::PairedEvidence::equivalent: return "equivalent";
    default: return "no_claim";
  }
}

std::string UnsignedPercent(double fraction) {
  std::string text = FormatPercent(std::fabs(fraction));
  if (!text.empty() && text[0] == '+') text.erase(0, 1);
  return text;
}

namespace {
// False for evidence saved before paired rounds existed.
bool PairedRecorded(const v1::PairedEvidence& p) {
  return !p.method().empty() || !p.note().empty() || !p.round_ratios().empty();
}
}  // namespace

std::string PairedDetailText(const v1::PairedEvidence& p) {
  if (!PairedRecorded(p)) return "not recorded";
  const int rounds = p.round_ratios_size();
  const int pairs = p.unit_ratios_size();
  const std::string over = !p.has_median_ratio() ? ""
                           : pairs > 0 ? absl::StrCat("median ratio ", FormatRatio(p.median_ratio()), " over ", pairs,
                                                      " build pairs (", rounds, " rounds)")
                                       : absl::StrCat("median ratio ", FormatRatio(p.median_ratio()), " over ", rounds,
                                                      rounds == 1 ? " round" : " rounds");
  const std::string stopped = p.stop_reason().empty() ? "" : absl::StrCat("; ", p.stop_reason());
  if (!p.has_ci_low() || !p.has_ci_high())
    return absl::StrCat(p.note().empty() ? "no interval" : p.note(), over.empty() ? "" : "; ", over, stopped);
  const std::string withheld =
      p.claim() == v1::PairedEvidence::no_claim && !p.note().empty() ? absl::StrCat(p.note(), "; ") : "";
  return absl::StrCat(
      withheld, "at ", UnsignedPercent(p.confidence()), ": ", over, over.empty() ? "" : ", ", "interval ",
      FormatRatio(p.ci_low()), " to ", FormatRatio(p.ci_high()),
      pairs > 0                     ? absl::StrCat(" (valid at every look; smallest change that matters \u00b1",
                                                   UnsignedPercent(p.min_claimed_change()), ")")
      : p.has_achieved_confidence() ? absl::StrCat(" (exact confidence ", UnsignedPercent(p.achieved_confidence()), ")")
                                    : "",
      p.has_resolvable_change() ? absl::StrCat(", resolves changes of \u00b1", UnsignedPercent(p.resolvable_change()))
                                : "",
      stopped);
}

std::string PairedSummaryText(const v1::PairedEvidence& p) {
  if (!PairedRecorded(p)) return "not recorded";
  const char* claim = p.has_ci_low() && p.has_ci_high() ? PairedClaimText(p.claim()) : "no_claim:";
  return absl::StrCat(claim, " ", PairedDetailText(p));
}

const char* LatencyLabelName(v1::Comparison::LatencyChange change) {
  switch (change) {
    case v1::Comparison::faster: return "faster";
    case v1::Comparison::slower: return "slower";
    case v1::Comparison::within_variability: return "within_variability";
    default: return "unavailable";
  }
}

const char* CheckStatusName(v1::OutputCheck::Status status) {
  switch (status) {
    case v1::OutputCheck::passed: return "passed";
    case v1::OutputCheck::failed: return "failed";
    default: return "not provided";
  }
}

bool NamesSpeedLabel(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* word : {"faster", "slower", "within_variability", "within variability"})
    if (lower.find(word) != std::string::npos) return true;
  return false;
}

std::vector<std::string> NotesToShow(const v1::Comparison& comparison, int* left_out) {
  const bool withheld = WithheldBecause(comparison) != Withheld::kNone;
  std::vector<std::string> notes;
  *left_out = 0;
  for (const std::string& note : comparison.notes()) {
    if (withheld && NamesSpeedLabel(note)) {
      ++*left_out;
    } else {
      notes.push_back(note);
    }
  }
  return notes;
}

std::vector<std::string> ExportNames(const Evidence& evidence) {
  std::vector<std::string> names;
  const std::vector<RunView> runs = Runs(evidence);
  const bool equal = runs.size() == 2 && runs[0].name == runs[1].name;
  for (const RunView& run : runs) names.push_back(equal ? run.name + "/" + run.role : run.name);
  return names;
}

std::vector<const v1::OperatorStat*> OperatorsBySelfTime(const v1::OperatorProfile& profile) {
  std::vector<const v1::OperatorStat*> ops;
  ops.reserve(profile.operators_size());
  for (const v1::OperatorStat& op : profile.operators()) ops.push_back(&op);
  std::stable_sort(ops.begin(), ops.end(), [](const v1::OperatorStat* a, const v1::OperatorStat* b) {
    const bool a_nan = std::isnan(a->self_time_s()), b_nan = std::isnan(b->self_time_s());
    if (a_nan != b_nan) return b_nan;
    if (!a_nan && a->self_time_s() != b->self_time_s()) return a->self_time_s() > b->self_time_s();
    return a->name() < b->name();
  });
  return ops;
}

double PerCallSeconds(const v1::TimingBlock& block) {
  return block.calls() > 0 ? block.duration_s() / static_cast<double>(block.calls())
                           : std::numeric_limits<double>::quiet_NaN();
}

std::vector<std::pair<std::string, std::string>> FieldTexts(const google::protobuf::Message& message) {
  std::vector<std::pair<std::string, std::string>> out;
  const google::protobuf::Descriptor* d = message.GetDescriptor();
  const google::protobuf::Reflection* r = message.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* field = d->field(i);
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      std::vector<std::string> values;
      for (int k = 0; k < r->FieldSize(message, field); ++k) values.push_back(ValueText(message, field, k));
      out.emplace_back(field->name(), absl::StrJoin(values, ", "));
    } else if (field->has_presence() && !r->HasField(message, field)) {
      out.emplace_back(field->name(), "unknown");
    } else {
      out.emplace_back(field->name(), ValueText(message, field, 0));
    }
  }
  return out;
}

std::string FailedCheckAftermath(const v1::Comparison& c) {
  if (c.before().timing().blocks().empty() && c.after().timing().blocks().empty())
    return "It failed before timing, so neither run was timed; fix the candidate and compare again.";
  return "Both measurements are kept, but every delta and the speed label are withheld.";
}

}  // namespace torchscan::report
