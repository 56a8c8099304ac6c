#include "report/terminal_renderer.h"

#include <algorithm>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
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

constexpr const char* kRed = "\033[1;31m";
constexpr const char* kGreen = "\033[32m";
constexpr const char* kYellow = "\033[33m";

// The output being built, and whether it may hold colours.
struct Lines {
  bool color = false;
  std::string out;

  std::string Paint(std::string_view text, const char* code) const {
    return color ? absl::StrCat(code, std::string(text), "\033[0m") : std::string(text);
  }
  // "  key       value  detail"; the detail comes from the evidence and is made safe here.
  void Field(std::string_view key, const std::string& value, const std::string& detail) {
    absl::StrAppend(&out, "  ", PadRight(std::string(key), 9), " ", value,
                    detail.empty() ? "" : "  " + TerminalSafe(detail), "\n");
  }
};

void RunLines(const std::vector<RunView>& runs, bool show_role, Lines* lines) {
  size_t name_width = 0;
  for (const RunView& run : runs) name_width = std::max(name_width, DisplayWidth(TerminalSafe(run.name)));
  for (const RunView& run : runs) {
    const v1::Timing& t = run.report->timing();
    std::string stats = "no timing blocks";
    if (!t.blocks().empty())
      stats = absl::StrCat(PadLeft(FormatSeconds(t.summary().median_s()), 10), " \u00b1 ",
                           PadRight(FormatSeconds(t.summary().iqr_s()), 10), "  ",
                           PadLeft(FormatSi(t.throughput(), TerminalSafe(t.throughput_unit())), 20), "  ",
                           FormatCount(t.blocks_size()), t.blocks_size() == 1 ? " block" : " blocks");
    absl::StrAppend(&lines->out, "  ", show_role ? PadRight(run.role, 9) + " " : "",
                    PadRight(TerminalSafe(run.name), name_width), "  ", stats, "\n");
  }
  for (const RunView& run : runs)
    if (const std::string load = DescribeTimingLoad(run.report->timing()); !load.empty())
      absl::StrAppend(&lines->out, "  load      ", TerminalSafe(run.name), ": ", TerminalSafe(load), "\n");
  for (const RunView& run : runs)
    if (run.report->has_instructions())
      absl::StrAppend(&lines->out, "  instrs    ", TerminalSafe(run.name), ": ",
                      TerminalSafe(DescribeInstructionCounts(run.report->instructions())), "\n");
  for (const RunView& run : runs)
    for (const v1::Warning& w : run.report->warnings())
      absl::StrAppend(&lines->out, "  ", lines->Paint("warning", kYellow), "   ", TerminalSafe(run.name), ": ",
                      TerminalSafe(w.code()), ": ", TerminalSafe(w.message()), "\n");
}

void ComparisonLines(const v1::Comparison& c, Lines* lines) {
  lines->Field("verdict", TerminalSafe(VerdictSentence(c)), "");
  for (const VerdictField& f : VerdictFields(c)) {
    const char* color = f.tone == Tone::kGood    ? kGreen
                        : f.tone == Tone::kBad   ? kRed
                        : f.tone == Tone::kDoubt ? kYellow
                                                 : "";
    // A failed check and runs that are not comparable are shouted, as nothing after them stands.
    const std::string value = TerminalSafe(f.tone == Tone::kBad && (f.short_key == "check" || f.short_key == "compat")
                                               ? absl::AsciiStrToUpper(f.value)
                                               : f.value);
    lines->Field(f.short_key, *color ? lines->Paint(value, color) : value, f.detail);
  }
  // Beside the label too: instructions counted under callgrind, and the functions that moved most.
  if (HasInstructionDiff(c)) {
    lines->Field("instrs", TerminalSafe(DescribeInstructionDiff(c.instructions())), "");
    for (const v1::FunctionDelta* row : DiffRows(c.instructions(), 3))
      absl::StrAppend(&lines->out, "            ", TerminalSafe(FunctionDeltaText(*row)), "\n");
  }
  if (const std::string plan = DescribeComparisonPlan(c); !plan.empty()) lines->Field("plan", TerminalSafe(plan), "");
}

// The time during which at least one of `spans` ran (overlaps counted once).
double CoveredSeconds(std::vector<std::pair<double, double>> spans) {
  std::sort(spans.begin(), spans.end());
  double covered = 0, reached = -std::numeric_limits<double>::infinity();
  for (const auto& [start, end] : spans) {
    if (end > reached) covered += end - std::max(start, reached);
    reached = std::max(reached, end);
  }
  return covered;
}

// One line per timeline (Timelines): how many phases over how long, then the time spent in
// each kind of phase (the phase name's first word: build, timing, profile ...), in the order
// the kinds first ran. The worker's own phases run one at a time, so their durations add up;
// a kind of concurrent spans (RSS children beside the worker) shows the time during which
// any of them ran, marked "beside", since they overlap each other and the other phases.
void TimelineLines(const Evidence& evidence, Lines* lines) {
  struct Kind {
    std::string name;
    double own_s = 0;                                     // the worker's own spans, summed
    std::vector<std::pair<double, double>> concurrent{};  // start and end of concurrent spans
  };
  for (const TimelineView& t : Timelines(evidence)) {
    std::vector<Kind> kinds;
    for (const v1::PhaseSpan& span : t.timeline->spans()) {
      const std::string kind = span.phase().substr(0, span.phase().find(' '));
      auto it = std::find_if(kinds.begin(), kinds.end(), [&](const Kind& k) { return k.name == kind; });
      if (it == kinds.end()) it = kinds.insert(kinds.end(), Kind{kind});
      if (span.concurrent()) it->concurrent.emplace_back(span.start_s(), span.end_s());
      else it->own_s += span.end_s() - span.start_s();
    }
    std::string detail;
    for (const Kind& k : kinds) {
      absl::StrAppend(&detail, detail.empty() ? "" : ", ", k.name, " ");
      if (k.own_s > 0 || k.concurrent.empty()) absl::StrAppend(&detail, FormatSeconds(k.own_s));
      if (!k.concurrent.empty())
        absl::StrAppend(&detail, k.own_s > 0 ? " + " : "", FormatSeconds(CoveredSeconds(k.concurrent)), " beside");
    }
    const int n = t.timeline->spans_size();
    lines->Field("phases",
                 absl::StrCat(t.run.empty() ? "" : TerminalSafe(t.run) + ": ", n, n == 1 ? " phase" : " phases",
                              " over ", FormatSeconds(t.timeline->spans(n - 1).end_s())),
                 detail);
  }
}

}  // namespace

std::string TerminalRenderer::Render(const Evidence& evidence) const {
  Lines lines{options_.color, ""};
  const std::vector<RunView> runs = Runs(evidence);
  if (const v1::Comparison* c = ComparisonOf(evidence)) {
    absl::StrAppend(&lines.out, "TorchScan comparison: ", TerminalSafe(EvidenceTitle(evidence)), "\n");
    ComparisonLines(*c, &lines);
    RunLines(runs, true, &lines);
  } else {
    absl::StrAppend(&lines.out, "TorchScan report: ", TerminalSafe(EvidenceTitle(evidence)), "\n");
    RunLines(runs, false, &lines);
  }
  if (const v1::NoiseFloor* floor = NoiseFloorOf(evidence))
    lines.Field("noise", floor->stale() ? "stale" : "floor", DescribeNoiseFloor(*floor));
  TimelineLines(evidence, &lines);
  return lines.out;
}

}  // namespace torchscan::report
