// CI gating on a comparison's verdict (issue 16, item 1): `compare` and `compare-reports` take
// --fail-on slower|not-faster|any-change and exit with kExitGateFailed (6) when the verdict
// matches. The verdict is the guide's label (latency_change: faster, slower,
// within_variability, unavailable) unless --gate-on claim picks the paired claim (faster,
// slower, no_claim; "unavailable" when the comparison has no claim, as from saved reports or a
// withheld one), or --gate-on instructions the instruction count's change (Comparison.instructions,
// with --instructions): slower when instructions per call grew by more than
// --instruction-threshold (default 1 %) and more than the counts' own repeat spread, faster when
// they fell by as much, within_threshold otherwise, unavailable without a known count. A failed output check is exit 1
// whatever the gate (ResultExitCode), so it always fails a CI step. No gRPC, no LibTorch.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/report.pb.h"

namespace torchscan {

enum class FailOn {
  kNever,      // no --fail-on: no gating (the default)
  kSlower,     // the verdict is slower
  kNotFaster,  // anything but faster: slower, within_variability / no_claim, unavailable
  kAnyChange,  // faster or slower
};

enum class GateOn { kLabel, kClaim, kInstructions };

inline constexpr double kDefaultInstructionThreshold = 0.01;

struct GateOptions {
  FailOn fail_on = FailOn::kNever;
  GateOn gate_on = GateOn::kLabel;
  double instruction_threshold = kDefaultInstructionThreshold;  // with kInstructions: a fraction, 0.01 = 1 %
};

// "slower", "not-faster", "any-change" (and "" for kNever); InvalidArgument naming --fail-on
// and the accepted words otherwise.
absl::StatusOr<FailOn> ParseFailOn(const std::string& text);
// "label", "claim" or "instructions"; InvalidArgument naming --gate-on otherwise.
absl::StatusOr<GateOn> ParseGateOn(const std::string& text);

// --instruction-threshold: "1%", "0.5 %" or a fraction ("0.01"); above 0 and at most 100 %.
// InvalidArgument naming the flag otherwise.
absl::StatusOr<double> ParseInstructionThreshold(const std::string& text);

// The verdict the gate reads: the label's name, the claim's ("unavailable" without one), or the
// instruction count's (faster, slower, within_threshold, unavailable).
std::string GateVerdict(const v1::Comparison& comparison, const GateOptions& gate);

// Why the gate fails `comparison`, e.g. "--fail-on slower: the label says slower"; nullopt
// when it passes (always with kNever).
std::optional<std::string> GateFailure(const v1::Comparison& comparison, const GateOptions& gate);

}  // namespace torchscan
