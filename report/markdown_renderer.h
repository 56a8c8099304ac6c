// GitHub-flavoured Markdown of a report or comparison, to paste into a pull request: a
// heading, the output check, the latency label with its reason and the evidence, a table of
// runs (median, IQR, throughput, blocks), the deltas (known, and unknown with reasons),
// changed settings, compatibility mismatches, warnings and notes; environment and inputs
// sit in a collapsed <details>, and so does each phase timeline (phase, start, duration). A failed check opens with a "❌ Output check failed" quote
// and shows no label or delta (report/renderer.h). Strings from the evidence pass through
// MarkdownEscape: no raw HTML, no table breakage.
#pragma once

#include "report/renderer.h"

namespace torchscan {

class MarkdownRenderer : public Renderer {
 public:
  std::string Render(const Evidence& evidence) const override;
  std::string_view format() const override { return "markdown"; }
  std::string_view file_extension() const override { return "md"; }
};

}  // namespace torchscan
