#include "client/verdict_gate.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace torchscan {

absl::StatusOr<FailOn> ParseFailOn(const std::string& text) {
  if (text.empty()) return FailOn::kNever;
  if (text == "slower") return FailOn::kSlower;
  if (text == "not-faster") return FailOn::kNotFaster;
  if (text == "any-change") return FailOn::kAnyChange;
  return absl::InvalidArgumentError(
      absl::StrCat("--fail-on: \"", text, "\" is not a gate; use slower, not-faster or any-change"));
}

absl::StatusOr<GateOn> ParseGateOn(const std::string& text) {
  if (text == "label") return GateOn::kLabel;
  if (text == "claim") return GateOn::kClaim;
  if (text == "instructions") return GateOn::kInstructions;
  return absl::InvalidArgumentError(
      absl::StrCat("--gate-on: \"", text,
                   "\" is not a verdict; use label (the guide's), claim (the paired one) or instructions (the "
                   "callgrind count's change, with --instructions)"));
}

absl::StatusOr<double> ParseInstructionThreshold(const std::string& text) {
  absl::string_view number = absl::StripAsciiWhitespace(text);
  const bool percent = absl::ConsumeSuffix(&number, "%");
  double value = 0;
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(number), &value) || !(value > 0))
    return absl::InvalidArgumentError(
        absl::StrCat("--instruction-threshold: \"", text, "\" is not a positive share; write 1% or 0.01"));
  const double fraction = percent ? value / 100 : value;
  if (fraction > 1)
    return absl::InvalidArgumentError(
        absl::StrCat("--instruction-threshold: \"", text, "\" is above 100 %; write 1% or 0.01 for one per cent"));
  return fraction;
}

std::string GateVerdict(const v1::Comparison& comparison, const GateOptions& gate) {
  if (gate.gate_on == GateOn::kLabel) return v1::Comparison::LatencyChange_Name(comparison.latency_change());
  if (gate.gate_on == GateOn::kInstructions) {
    const v1::InstructionDiff& d = comparison.instructions();
    if (!d.known() || !d.has_relative_change()) return "unavailable";
    const double beyond = std::max(gate.instruction_threshold, d.spread());
    if (d.relative_change() > beyond) return "slower";
    if (d.relative_change() < -beyond) return "faster";
    return "within_threshold";
  }
  const v1::PairedEvidence& paired = comparison.evidence().paired();
  // A claim exists only where an interval was made; otherwise there is nothing to gate on.
  if (!paired.has_ci_low()) return "unavailable";
  return v1::PairedEvidence::Claim_Name(paired.claim());
}

std::optional<std::string> GateFailure(const v1::Comparison& comparison, const GateOptions& gate) {
  const std::string verdict = GateVerdict(comparison, gate);
  const char* flag = nullptr;
  bool fails = false;
  switch (gate.fail_on) {
    case FailOn::kNever: return std::nullopt;
    case FailOn::kSlower:
      flag = "slower";
      fails = verdict == "slower";
      break;
    case FailOn::kNotFaster:
      flag = "not-faster";
      fails = verdict != "faster";
      break;
    case FailOn::kAnyChange:
      flag = "any-change";
      fails = verdict == "faster" || verdict == "slower";
      break;
  }
  if (!fails) return std::nullopt;
  const char* what = gate.gate_on == GateOn::kLabel   ? "label"
                     : gate.gate_on == GateOn::kClaim ? "paired claim"
                                                      : nullptr;
  if (what == nullptr)
    return absl::StrCat(
        "--fail-on ", flag, ": the instruction count says ", verdict,
        comparison.instructions().has_relative_change()
            ? absl::StrFormat(" (%+.2f %% per call; threshold %.2f %%)",
                              100 * comparison.instructions().relative_change(), 100 * gate.instruction_threshold)
            : "");
  return absl::StrCat("--fail-on ", flag, ": the ", what, " says ", verdict);
}

}  // namespace torchscan
