// GitHub-flavoured Markdown of a report or comparison, to paste into a merge-request comment:
// a heading, the verdict sentence, its fields (check, paired claim, label, compatibility:
// report/verdict_sentence.h VerdictFields), the timing plan, the noise
// floor where known, the machine (CPU, LibTorch, BLAS, device, threads: one line, or one per
// run when they differ), a table of runs (median, IQR, throughput, blocks), the deltas (known,
// and unknown with reasons), changed settings, compatibility mismatches and warnings (at most
// five, then how many more). That much is plain Markdown, no HTML, and stays under ~40 lines
// for the fixtures' largest comparison (markdown_renderer_test counts them). With `details`
// (render --format markdown --details) the notes follow, and collapsed <details> sections
// that GitHub and GitLab render: environment and inputs, and each phase timeline (phase,
// start, duration). A failed check opens with a "❌ Output check failed" quote and shows no
// label or delta (report/renderer.h). Strings from the evidence pass through MarkdownEscape:
// no raw HTML from them, no table breakage.
#pragma once

#include "report/renderer.h"

namespace torchscan::report {

class MarkdownRenderer : public Renderer {
 public:
  explicit MarkdownRenderer(bool details = false) : details_(details) {}
  std::string Render(const Evidence& evidence) const override;
  std::string_view format() const override { return "markdown"; }
  std::string_view file_extension() const override { return "md"; }

 private:
  bool details_;
};

}  // namespace torchscan::report
