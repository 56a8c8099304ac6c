// A compact terminal summary of a report or comparison (the client prints it after a job):
// for a comparison the verdict sentence and one line per field of it (check, paired claim,
// label, compatibility: report/verdict_sentence.h VerdictFields), the plan; one line per run
// with median ± IQR, throughput and blocks; then warnings;
// then one "phases" line per phase timeline: the phases' count and span, and the time spent
// in each kind of phase ("11 phases over 4.812 s  build 375.0 ms, timing 1.000 s, ...").
// A failed check prints "FAILED" first and no label or delta (report/renderer.h).
//
// Colour (ANSI SGR) only when TerminalOptions::color is set; without it the output is plain
// text. Strings from the evidence pass through TerminalSafe, so a hostile name cannot emit
// escape sequences.
#pragma once

#include "report/renderer.h"

namespace torchscan::report {

struct TerminalOptions {
  // ANSI colours for the check, the label and warnings. Default false (plain text).
  bool color = false;
};

class TerminalRenderer : public Renderer {
 public:
  explicit TerminalRenderer(TerminalOptions options = {}) : options_(options) {}
  std::string Render(const Evidence& evidence) const override;
  std::string_view format() const override { return "terminal"; }
  std::string_view file_extension() const override { return "txt"; }

 private:
  TerminalOptions options_;
};

}  // namespace torchscan::report
