// Picks a renderer by format name, for command lines (`torchscan-client render --format`).
// The one registry of formats: the client's help text and its error for an unknown --format
// list the names from here (RenderFormats), so a format added here shows up there by itself.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "report/renderer.h"

namespace torchscan::report {

struct RenderOptions {
  // Terminal format only: ANSI colours. Default false.
  bool color = false;
  // Markdown only: the notes and the collapsed <details> sections too (markdown_renderer.h).
  bool details = false;
};

// The accepted names, in this order: html, terminal, markdown, csv, gbench, notebook.
std::vector<std::string> RenderFormats();

// RenderFormats() joined by `separator`, for help texts and messages: "html | terminal | ..."
// for " | ".
std::string RenderFormatList(std::string_view separator);

// The renderer for `format` (exact, lower case). An unknown name gives InvalidArgument
// naming it and the accepted formats: 'unknown format "xml"; accepted formats: html, ...'.
absl::StatusOr<std::unique_ptr<Renderer>> RenderByFormat(std::string_view format, const RenderOptions& options = {});

}  // namespace torchscan::report
