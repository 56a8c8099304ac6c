// The compact view of a report or a comparison for a notebook cell (Python's _repr_html_): an
// HTML fragment, not a page, whose style is scoped to its own root element
// (report/html_page.h HtmlStyleScopedTo) so that it restyles nothing around it. It holds what a
// reader needs at a glance, in the full page's words (report/html_summary.h): the title, the
// verdict sentence, the banners, the cards, the timing plan, the noise floor, the per-call plot,
// and for a comparison the deltas and the paired rounds; then one line saying where the rest
// is (profile, memory, metadata, raw blocks, timeline: the full page that r.save() writes).
// Bounded whatever the evidence holds: no raw blocks, at most a few hundred plot columns, so
// a notebook grows by tens of kilobytes per displayed result, not a megabyte.
#pragma once

#include "report/renderer.h"

namespace torchscan::report {

inline constexpr char kNotebookRootClass[] = "torchscan-nb";

class NotebookRenderer : public Renderer {
 public:
  std::string Render(const Evidence& evidence) const override;
  std::string_view format() const override { return "notebook"; }
  std::string_view file_extension() const override { return "html"; }
};

}  // namespace torchscan::report
