#include "report/instruction_text.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/number_format.h"
#include "report/evidence_view.h"

namespace torchscan::report {
namespace {

std::string Signed(double value) { return (value >= 0 ? "+" : "-") + FormatSi(std::abs(value), ""); }

}  // namespace

std::string DescribeInstructionCounts(const v1::InstructionCounts& c) {
  if (!c.complete() || !c.has_instructions())
    return "no count: " + (c.diagnostics().empty() ? std::string("unknown reason") : c.diagnostics(0));
  std::string text = absl::StrCat(FormatSi(c.instructions(), "instructions"), " per call");
  if (c.repeats() > 1)
    absl::StrAppend(&text, c.spread() > 0 ? " (repeats differ by " + UnsignedPercent(c.spread()) + ")"
                                          : " (repeats agree exactly)");
  if (c.has_estimated_cycles())
    absl::StrAppend(&text, "; est. ", FormatSi(c.estimated_cycles(), "cycles"), ", ", FormatSi(c.l1_misses(), ""),
                    " L1 and ", FormatSi(c.ll_misses(), ""), " LL misses per call");
  absl::StrAppend(&text, "; ", c.calls(), " calls \u00d7 ", c.repeats(), c.repeats() == 1 ? " repeat" : " repeats",
                  c.tool().empty() ? "" : ", " + c.tool(), ", ", FormatSeconds(c.wall_s()));
  return text;
}

std::string DescribeInstructionDiff(const v1::InstructionDiff& d) {
  if (!d.known()) {
    const std::string& why = d.unknown_reason();
    return why.rfind("withheld", 0) == 0 ? why : "unknown: " + why;
  }
  std::string text = absl::StrCat(FormatPercent(d.relative_change()), " instructions per call (", Signed(d.delta()),
                                  ": ", FormatSi(d.before(), ""), " \u2192 ", FormatSi(d.after(), ""), ")");
  if (d.has_estimated_cycles_change())
    absl::StrAppend(&text, "; est. cycles ", FormatPercent(d.estimated_cycles_change()));
  if (d.spread() > 0) absl::StrAppend(&text, "; repeats differ by up to ", UnsignedPercent(d.spread()));
  return text;
}

std::string FunctionDeltaText(const v1::FunctionDelta& row) {
  return absl::StrCat(Signed(row.delta()), "  ", row.name(), " (", FormatSi(row.before(), ""), " \u2192 ",
                      FormatSi(row.after(), ""), ")");
}

std::vector<const v1::FunctionDelta*> DiffRows(const v1::InstructionDiff& d, int rows) {
  std::vector<const v1::FunctionDelta*> out;
  if (!d.known()) return out;
  for (int i = 0; i < std::min(rows, d.increases_size()); ++i) out.push_back(&d.increases(i));
  for (int i = 0; i < std::min(rows, d.decreases_size()); ++i) out.push_back(&d.decreases(i));
  return out;
}

}  // namespace torchscan::report
