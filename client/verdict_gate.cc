#include "client/verdict_gate.h"

#include "absl/strings/str_cat.h"

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
  return absl::InvalidArgumentError(
      absl::StrCat("--gate-on: \"", text, "\" is not a verdict; use label (the guide's) or claim (the paired one)"));
}

std::string GateVerdict(const v1::Comparison& comparison, GateOn gate_on) {
  if (gate_on == GateOn::kLabel) return v1::Comparison::LatencyChange_Name(comparison.latency_change());
  const v1::PairedEvidence& paired = comparison.evidence().paired();
  // A claim exists only where an interval was made; otherwise there is nothing to gate on.
  if (!paired.has_ci_low()) return "unavailable";
  return v1::PairedEvidence::Claim_Name(paired.claim());
}

std::optional<std::string> GateFailure(const v1::Comparison& comparison, const GateOptions& gate) {
  const std::string verdict = GateVerdict(comparison, gate.gate_on);
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
  return absl::StrCat("--fail-on ", flag, ": the ", gate.gate_on == GateOn::kLabel ? "label" : "paired claim", " says ",
                      verdict);
}

}  // namespace torchscan
