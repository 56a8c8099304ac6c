// The one sentence that leads every rendering of a comparison (issue 25, "one voice"): what
// the paired evidence found, by how much with its interval, and why the guide's label says
// what it says. It only reads what the comparison saved: neither the label nor the claim is
// decided again here. No escaping: callers escape for their format.
#pragma once

#include <string>
#include <vector>

#include "proto/report.pb.h"

namespace torchscan::report {

// Examples (the claim's part, then the label's):
//   "2.1% slower (90% interval 1.2% to 3.0%); smaller than the runs' spread (IQR 5.3% of the
//    median), so the guide's label is within_variability."
//   "No change larger than 1.0% (median 0.2% slower, 90% interval -0.4% to +0.6%); the guide's
//    label is within_variability too (median change +0.1%, within the IQR of 2.0%)."
//   "Undecided at ±1.0% when the 20 s cap was reached (median 0.8% slower, 90% interval -0.5% to
//    +2.1%); ..."
//   "No speed verdict: the output check failed (max abs diff 0.5 exceeds atol 1e-05)."
// Changes are of time per call: "slower" is the candidate taking longer. A paired claim that
// contradicts the label is said to, with what would settle it.
std::string VerdictSentence(const v1::Comparison& comparison);

// The figures every format shows under the sentence, in the sentence's words, so that no card
// or line contradicts it: the output check, the paired rounds' claim (its interval beside it),
// the guide's label (its rule's numbers beside it), compatibility. The p-value of the pooled
// blocks is not among them: the details show it with what it means. When the numbers are
// withheld the claim and the label are one field, "Latency change: withheld", with the reason.
enum class Tone { kNeutral, kGood, kBad, kDoubt };
struct VerdictField {
  std::string key;        // "Output check", "Paired rounds", "Latency change" (the label), "Compatibility"
  std::string short_key;  // "check", "paired", "latency", "compat" (the terminal's column)
  std::string value;      // "passed", "2.1% slower", "undecided at ±1.0%", "within_variability"
  std::string detail;     // "90.0% interval 1.2% to 3.0%", ...
  Tone tone = Tone::kNeutral;
};
std::vector<VerdictField> VerdictFields(const v1::Comparison& comparison);

}  // namespace torchscan::report
