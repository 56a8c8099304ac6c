// How every renderer reads evidence: which runs it holds, whether numbers are withheld,
// label and status names, the operator order, and the fields of settings-like messages.
// These only read what the report or comparison saved; nothing is measured or re-decided.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "proto/report.pb.h"
#include "report/report_json.h"

namespace torchscan::report {

struct RunView {
  std::string role;  // "report", "before" or "after"
  std::string name;  // the report's name, or the role when it is empty
  // For headings: the run's label when it tells this run apart (a report's own label, or a
  // comparison run's label that differs from the comparison's), else `name`; then the model
  // in parentheses when known: "mlp v2 (mlp_opt.pt)", "baseline (resnet18)", "measurement".
  std::string title;
  const v1::BenchmarkReport* report;  // points into the evidence
};

// One run for a report; before then after for a comparison.
std::vector<RunView> Runs(const Evidence& evidence);

// The heading of the evidence, which every format shows: the run's title for a report;
// "<before> → <after>" titles for a comparison, led by "<label>: " when the comparison has a
// label, and followed by what else differs between the runs, from its changed settings
// (" (channels_last false → true, dtype float32 → bfloat16)"; at most three, then "+N more";
// the model's revision and source are left out: the run titles name the files).
std::string EvidenceTitle(const Evidence& evidence);

// The comparison, or nullptr for a report.
const v1::Comparison* ComparisonOf(const Evidence& evidence);

// One run of a comparison as a plain report, exactly as saved: `run` is a role ("before",
// "after"; roles win over names) or a run's name. InvalidArgument when `evidence` is a single
// report, when no run has that name (naming both runs), or when both runs have it.
absl::StatusOr<v1::BenchmarkReport> SelectRun(const Evidence& evidence, std::string_view run);

// A timeline to show (proto/report.proto Timeline), always with spans.
struct TimelineView {
  // "" for the evidence's own: a report's, or a comparison job's (both runs' phases in one);
  // "before: NAME" / "after: NAME" for a run of a comparison that keeps its own (a comparison
  // of saved reports: each was measured alone).
  std::string run;
  const v1::Timeline* timeline;  // points into the evidence
  // The job's timeline as torchscand recorded it (job_timeline: time 0 at submission, queue
  // wait to write result) rather than the worker's (time 0 when the worker began the job).
  bool job = false;
};

// The evidence's own timeline, then each run's (comparisons only), then the job's as
// torchscand saw it (job_timeline); those without spans are left out, so evidence from
// before timelines has none.
std::vector<TimelineView> Timelines(const Evidence& evidence);

// Why a comparison's numbers are withheld. A failed output check comes first. When not kNone,
// renderers show no delta, ratio, relative change, p-value or speed label, even if a
// (hand-edited) file holds some.
enum class Withheld { kNone, kCheckFailed, kIncompatible };
Withheld WithheldBecause(const v1::Comparison& comparison);
const char* WithheldText(Withheld withheld);  // "the output check failed", ...

// Each mismatch as "field (before vs after)", joined by ", "; empty when there is none.
std::string MismatchesText(const v1::Compatibility& compatibility);

// Every reason the numbers are withheld, with its detail, joined by "; ": "the output check
// failed (max abs diff 0.5 exceeds atol 1e-05)", "the runs are not comparable
// (environment.cpu_model (A vs B))". Empty when nothing is withheld.
std::string WithheldDetail(const v1::Comparison& comparison);

// What became of the runs when the output check failed: "Both measurements are kept, but every
// delta and the speed label are withheld." or, when it failed before timing (neither run has a
// block), "It failed before timing, so neither run was timed; fix the candidate and compare
// again."
std::string FailedCheckAftermath(const v1::Comparison& comparison);

// FormatPercent of the magnitude, without a sign: 0.9 and -0.9 -> "90.0%".
std::string UnsignedPercent(double fraction);

const char* LatencyLabelName(v1::Comparison::LatencyChange change);  // "faster", ...
const char* PairedClaimText(v1::PairedEvidence::Claim claim);        // "faster", "slower", "no_claim"

// The paired evidence in one line, as saved: "faster at 90.0%: median ratio 0.505× over 6
// rounds, interval 0.49× to 0.53× (exact confidence 96.9%), resolves changes of ±2.0%";
// without an interval "no_claim: <note>" (its ratios, when any, still counted); "not recorded"
// for evidence from before paired rounds. Callers show it only when numbers are not withheld.
std::string PairedSummaryText(const v1::PairedEvidence& paired);

// The same line without its leading claim ("at 90.0%: median ratio ...", or the note), for
// renderers that show the claim in a column of its own.
std::string PairedDetailText(const v1::PairedEvidence& paired);
const char* CheckStatusName(v1::OutputCheck::Status status);  // "passed", "not provided"

// True when `text` names a speed label ("faster", "slower", "within_variability", any case).
bool NamesSpeedLabel(std::string_view text);

// The notes to show. When numbers are withheld, notes that name a speed label are left out
// (the label they explain is withheld) and counted in `*left_out`.
std::vector<std::string> NotesToShow(const v1::Comparison& comparison, int* left_out);

// Names for exports, parallel to Runs(): RunView::name (the role for an empty name), and
// "<name>/before", "<name>/after" when a comparison's two names are equal.
std::vector<std::string> ExportNames(const Evidence& evidence);

// Operators by descending self time (NaN last), ties by name.
std::vector<const v1::OperatorStat*> OperatorsBySelfTime(const v1::OperatorProfile& profile);

// duration_s / calls, or NaN when calls <= 0.
double PerCallSeconds(const v1::TimingBlock& block);

// The scalar and repeated-scalar fields of `message`, in declaration order, as display text:
// unset optional fields "unknown", names ending "_bytes" as bytes, "_s" as seconds, bools
// "yes"/"no", enums by name, repeated values joined by ", ". Message fields are skipped.
std::vector<std::pair<std::string, std::string>> FieldTexts(const google::protobuf::Message& message);

}  // namespace torchscan::report
