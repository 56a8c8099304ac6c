#include "report/render_by_format.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "report/csv_export.h"
#include "report/gbench_export.h"
#include "report/html_renderer.h"
#include "report/markdown_renderer.h"
#include "report/notebook_renderer.h"
#include "report/terminal_renderer.h"

namespace torchscan::report {
namespace {

// The registry: every format's name and renderer, in the order RenderFormats() lists them.
struct RenderFormat {
  const char* name;
  std::function<std::unique_ptr<Renderer>(const RenderOptions&)> make;
};

const std::vector<RenderFormat>& Registry() {
  static const auto* const registry = new std::vector<RenderFormat>{
      {"html", [](const RenderOptions&) { return std::make_unique<HtmlRenderer>(); }},
      {"terminal", [](const RenderOptions& o) { return std::make_unique<TerminalRenderer>(TerminalOptions{o.color}); }},
      {"markdown", [](const RenderOptions& o) { return std::make_unique<MarkdownRenderer>(o.details); }},
      {"csv", [](const RenderOptions&) { return std::make_unique<CsvExporter>(); }},
      {"gbench", [](const RenderOptions&) { return std::make_unique<GbenchExporter>(); }},
      {"notebook", [](const RenderOptions&) { return std::make_unique<NotebookRenderer>(); }},
  };
  return *registry;
}

}  // namespace

std::vector<std::string> RenderFormats() {
  std::vector<std::string> names;
  for (const RenderFormat& format : Registry()) names.push_back(format.name);
  return names;
}

std::string RenderFormatList(std::string_view separator) {
  return absl::StrJoin(RenderFormats(), absl::string_view(separator.data(), separator.size()));
}

absl::StatusOr<std::unique_ptr<Renderer>> RenderByFormat(std::string_view format, const RenderOptions& options) {
  for (const RenderFormat& known : Registry())
    if (format == known.name) return known.make(options);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown format \"", std::string(format), "\"; accepted formats: ", RenderFormatList(", ")));
}

}  // namespace torchscan::report
