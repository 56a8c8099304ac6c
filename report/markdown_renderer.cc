#include "report/markdown_renderer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/instruction_diff.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/evidence_view.h"
#include "report/instruction_text.h"
#include "report/load_text.h"
#include "report/noise_floor_text.h"
#include "report/round_plan_text.h"
#include "report/verdict_sentence.h"

namespace torchscan::report {
namespace {

std::string RunLabel(const RunView& run) {
  return run.role == "report" ? MarkdownEscape(run.name) : absl::StrCat(run.role, ": ", MarkdownEscape(run.name));
}

void RunsTable(const std::vector<RunView>& runs, std::string* out) {
  out->append("| run | median per call | IQR | throughput | blocks |\n|---|--:|--:|--:|--:|\n");
  for (const RunView& run : runs) {
    const v1::Timing& t = run.report->timing();
    if (t.blocks().empty()) {
      absl::StrAppend(out, "| ", RunLabel(run), " | - | - | - | 0 |\n");
      continue;
    }
    absl::StrAppend(out, "| ", RunLabel(run), " | ", FormatSeconds(t.summary().median_s()), " | ",
                    FormatSeconds(t.summary().iqr_s()), " | ",
                    MarkdownEscape(FormatSi(t.throughput(), t.throughput_unit())), " | ", FormatCount(t.blocks_size()),
                    " |\n");
  }
  std::string load;
  for (const RunView& run : runs)
    if (const std::string text = DescribeTimingLoad(run.report->timing()); !text.empty())
      absl::StrAppend(&load, load.empty() ? "" : "; ", RunLabel(run), ": ", MarkdownEscape(text));
  if (!load.empty()) absl::StrAppend(out, "\nLoad during timing: ", load, "\n");
}

void Verdict(const v1::Comparison& c, std::string* out) {
  const v1::OutputCheck& check = c.output_check();
  absl::StrAppend(out, "**", MarkdownEscape(VerdictSentence(c)), "**\n\n");
  if (check.status() == v1::OutputCheck::failed)
    absl::StrAppend(out, "> **\u274c Output check failed:** ", MarkdownEscape(check.message()), "\n> ",
                    FailedCheckAftermath(c), "\n\n");
  if (!c.compatibility().compatible()) {
    absl::StrAppend(out, "> **\u26a0\ufe0f The runs are not comparable.** Mismatches:\n");
    for (const v1::Mismatch& m : c.compatibility().mismatches())
      absl::StrAppend(out, "> - ", MarkdownEscape(m.field()), ": ", MarkdownEscape(m.before()), " vs ",
                      MarkdownEscape(m.after()), "\n");
    out->append("\n");
  }
  for (const VerdictField& f : VerdictFields(c))
    absl::StrAppend(out, "- **", f.key, ":** ", MarkdownEscape(f.value),
                    f.detail.empty() ? "" : " \u2014 " + MarkdownEscape(f.detail), "\n");
  if (const std::string plan = DescribeComparisonPlan(c); !plan.empty())
    absl::StrAppend(out, "- **Timing plan:** ", MarkdownEscape(plan), "\n");
  out->append("\n");
}

void Deltas(const v1::Comparison& c, std::string* out) {
  if (WithheldBecause(c) != Withheld::kNone || c.deltas().empty()) return;
  out->append("\n| metric | before | after | change | ratio | note |\n|---|--:|--:|--:|--:|---|\n");
  for (const v1::MetricDelta& d : c.deltas()) {
    const bool known = d.known() && d.has_delta();
    absl::StrAppend(out, "| ", MarkdownEscape(d.name()), " | ",
                    d.has_before() ? MarkdownEscape(FormatMetric(d.before(), d.unit())) : "-", " | ",
                    d.has_after() ? MarkdownEscape(FormatMetric(d.after(), d.unit())) : "-", " | ",
                    known ? MarkdownEscape(FormatSignedMetric(d.delta(), d.unit())) : "unknown", " | ",
                    known && d.has_ratio() ? FormatRatio(d.ratio()) : "", " | ",
                    known ? "" : MarkdownEscape(d.unknown_reason()), " |\n");
  }
}

// Instructions counted under callgrind: the diff's headline and its top function rows for a
// comparison, each run's count otherwise; beside the label, never deciding it.
void Instructions(const std::vector<RunView>& runs, const v1::Comparison* c, std::string* out) {
  if (c != nullptr && HasInstructionDiff(*c)) {
    absl::StrAppend(out, "\n**Instructions per call** (callgrind; not used for the label): ",
                    MarkdownEscape(DescribeInstructionDiff(c->instructions())), "\n");
    const std::vector<const v1::FunctionDelta*> rows = DiffRows(c->instructions(), 5);
    if (!rows.empty()) out->append("\n| function (self, per call) | before | after | change |\n|---|--:|--:|--:|\n");
    for (const v1::FunctionDelta* row : rows)
      absl::StrAppend(out, "| ", MarkdownEscape(row->name()), " | ", FormatSi(row->before(), ""), " | ",
                      FormatSi(row->after(), ""), " | ", row->delta() >= 0 ? "+" : "-",
                      FormatSi(std::abs(row->delta()), ""), " |\n");
    return;
  }
  for (const RunView& run : runs)
    if (run.report->has_instructions())
      absl::StrAppend(out, "\n- **Instructions (", RunLabel(run), "):** ",
                      MarkdownEscape(DescribeInstructionCounts(run.report->instructions())), "\n");
}

void Changes(const v1::Comparison& c, std::string* out) {
  if (c.changed_settings().empty()) return;
  out->append("\n**Changed settings**\n\n| setting | before | after |\n|---|---|---|\n");
  for (const v1::SettingChange& s : c.changed_settings())
    absl::StrAppend(out, "| ", MarkdownEscape(s.name()), " | ", MarkdownEscape(s.before()), " | ",
                    MarkdownEscape(s.after()), " |\n");
}

constexpr int kCompactWarnings = 5;  // warnings listed without --details

// "CPU, LibTorch V, BLAS B, device D, threads I/O" of one run.
std::string MachineText(const v1::BenchmarkReport& r) {
  const v1::Environment& e = r.environment();
  return absl::StrCat(MarkdownEscape(e.cpu_model()), ", LibTorch ", MarkdownEscape(e.libtorch_version()), ", BLAS ",
                      MarkdownEscape(e.blas_library()), ", device ", MarkdownEscape(r.settings().device()),
                      ", threads ", r.settings().threads().intra_op(), "/", r.settings().threads().inter_op());
}

// The machine each run ran on, one line when they agree.
void Machine(const std::vector<RunView>& runs, std::string* out) {
  std::vector<std::pair<std::string, std::string>> lines;  // run label, machine
  for (const RunView& run : runs) lines.emplace_back(RunLabel(run), MachineText(*run.report));
  if (lines.empty()) return;
  const bool same = std::all_of(lines.begin(), lines.end(), [&](const auto& l) { return l.second == lines[0].second; });
  if (same) {
    absl::StrAppend(out, "- **Machine:** ", lines[0].second, "\n\n");
    return;
  }
  for (const auto& [label, machine] : lines) absl::StrAppend(out, "- **Machine of ", label, ":** ", machine, "\n");
  out->append("\n");
}

void Warnings(const std::vector<RunView>& runs, bool all, std::string* out) {
  std::string list;
  int shown = 0, left_out = 0;
  for (const RunView& run : runs)
    for (const v1::Warning& w : run.report->warnings()) {
      if (!all && shown == kCompactWarnings) {
        ++left_out;
        continue;
      }
      absl::StrAppend(&list, "- ", RunLabel(run), ": ", MarkdownEscape(w.code()), ": ", MarkdownEscape(w.message()),
                      "\n");
      ++shown;
    }
  if (left_out > 0) absl::StrAppend(&list, "- and ", left_out, " more (`--details` lists them)\n");
  if (!list.empty()) absl::StrAppend(out, "\n**Warnings**\n\n", list);
}

void Notes(const v1::Comparison& c, std::string* out) {
  int left_out = 0;
  const std::vector<std::string> notes = NotesToShow(c, &left_out);
  if (notes.empty()) return;
  out->append("\n**Notes**\n\n");
  for (const std::string& n : notes) absl::StrAppend(out, "- ", MarkdownEscape(n), "\n");
}

void Metadata(const std::vector<RunView>& runs, std::string* out) {
  out->append("\n<details><summary>Environment and inputs</summary>\n\n");
  for (const RunView& run : runs) {
    const v1::BenchmarkReport& r = *run.report;
    absl::StrAppend(out, "- ", RunLabel(run), ": ", MachineText(r), "\n");
    for (const v1::TensorInfo& t : r.input_metadata().tensors())
      absl::StrAppend(out, "  - input ", MarkdownEscape(t.name()), ": [", absl::StrJoin(t.shape(), ", "), "] ",
                      MarkdownEscape(t.dtype()), "\n");
    const std::map<std::string, std::string> fields(r.input_metadata().fields().begin(),
                                                    r.input_metadata().fields().end());  // sorted
    for (const auto& [k, v] : fields) absl::StrAppend(out, "  - ", MarkdownEscape(k), ": ", MarkdownEscape(v), "\n");
  }
  out->append("\n</details>\n");
}

// Each timeline (Timelines) as a collapsed table: phase, start, duration.
void TimelineTables(const Evidence& evidence, std::string* out) {
  for (const TimelineView& t : Timelines(evidence)) {
    absl::StrAppend(out, "\n<details><summary>Phase timeline", t.run.empty() ? "" : " of " + MarkdownEscape(t.run),
                    "</summary>\n\nSeconds on ", MarkdownEscape(t.timeline->clock()),
                    t.job ? " since the job was submitted at " : " since the worker began the job at ",
                    MarkdownEscape(t.timeline->started_at()), ".\n\n| phase | start | duration |\n|---|--:|--:|\n");
    for (const v1::PhaseSpan& span : t.timeline->spans())
      absl::StrAppend(out, "| ", MarkdownEscape(span.phase()), " | ", FormatSeconds(span.start_s()), " | ",
                      FormatSeconds(span.end_s() - span.start_s()), " |\n");
    out->append("\n</details>\n");
  }
}

}  // namespace

std::string MarkdownRenderer::Render(const Evidence& evidence) const {
  const std::vector<RunView> runs = Runs(evidence);
  const v1::Comparison* c = ComparisonOf(evidence);
  std::string out;
  if (c) {
    absl::StrAppend(&out, "### TorchScan: ", MarkdownEscape(EvidenceTitle(evidence)), "\n\n");
    Verdict(*c, &out);
  } else {
    absl::StrAppend(&out, "### TorchScan: ", MarkdownEscape(EvidenceTitle(evidence)), "\n\n");
  }
  if (const v1::NoiseFloor* floor = NoiseFloorOf(evidence))
    absl::StrAppend(&out, "- **Noise floor (not used for the label):** ", MarkdownEscape(DescribeNoiseFloor(*floor)),
                    "\n\n");
  Machine(runs, &out);
  RunsTable(runs, &out);
  if (c) Deltas(*c, &out);
  Instructions(runs, c, &out);
  if (c) Changes(*c, &out);
  Warnings(runs, details_, &out);
  if (!details_) return out;
  if (c) Notes(*c, &out);
  Metadata(runs, &out);
  TimelineTables(evidence, &out);
  return out;
}

}  // namespace torchscan::report
