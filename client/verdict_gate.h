// CI gating on a comparison's verdict (issue 16, item 1): `compare` and `compare-reports` take
// --fail-on slower|not-faster|any-change and exit with kExitGateFailed (6) when the verdict
// matches. The verdict is the guide's label (latency_change: faster, slower,
// within_variability, unavailable) unless --gate-on claim picks the paired claim (faster,
// slower, no_claim; "unavailable" when the comparison has no claim, as from saved reports or a
// withheld one). A failed output check is exit 1 whatever the gate (ResultExitCode), so it
// always fails a CI step. No gRPC, no LibTorch.
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

enum class GateOn { kLabel, kClaim };

struct GateOptions {
  FailOn fail_on = FailOn::kNever;
  GateOn gate_on = GateOn::kLabel;
};

// "slower", "not-faster", "any-change" (and "" for kNever); InvalidArgument naming --fail-on
// and the accepted words otherwise.
absl::StatusOr<FailOn> ParseFailOn(const std::string& text);
// "label" or "claim"; InvalidArgument naming --gate-on otherwise.
absl::StatusOr<GateOn> ParseGateOn(const std::string& text);

// The verdict the gate reads: the label's name, or the claim's ("unavailable" without one).
std::string GateVerdict(const v1::Comparison& comparison, GateOn gate_on);

// Why the gate fails `comparison`, e.g. "--fail-on slower: the label says slower"; nullopt
// when it passes (always with kNever).
std::optional<std::string> GateFailure(const v1::Comparison& comparison, const GateOptions& gate);

}  // namespace torchscan
