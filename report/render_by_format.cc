#include "report/render_by_format.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "report/csv_export.h"
#include "report/gbench_export.h"
#include "report/html_renderer.h"
#include "report/markdown_renderer.h"
#include "report/terminal_renderer.h"

namespace torchscan {

std::vector<std::string> RenderFormats() { return {"html", "terminal", "markdown", "csv", "gbench"}; }

absl::StatusOr<std::unique_ptr<Renderer>> RenderByFormat(std::string_view format, const RenderOptions& options) {
  if (format == "html") return std::make_unique<HtmlRenderer>();
  if (format == "terminal") return std::make_unique<TerminalRenderer>(TerminalOptions{options.color});
  if (format == "markdown") return std::make_unique<MarkdownRenderer>();
  if (format == "csv") return std::make_unique<CsvExporter>();
  if (format == "gbench") return std::make_unique<GbenchExporter>();
  return absl::InvalidArgumentError(absl::StrCat("unknown format \"", std::string(format),
                                                 "\"; accepted formats: ", absl::StrJoin(RenderFormats(), ", ")));
}

}  // namespace torchscan
