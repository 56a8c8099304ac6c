// Escaping and column widths shared by every renderer (report/renderer.h). Pure functions,
// no I/O; each states what it does with hostile text. Numbers are core/number_format.h's.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace torchscan::report {

// Text safe inside HTML elements and double- or single-quoted attributes: & < > " ' become
// entities; C0 control characters other than tab and newline become U+FFFD.
std::string HtmlEscape(std::string_view text);

// Text safe inside one Markdown table cell or paragraph line: Markdown punctuation
// (\ ` * _ [ ] | ~ # !) is backslash-escaped, < > & become entities (no raw HTML), and line
// breaks and other control characters become spaces.
std::string MarkdownEscape(std::string_view text);

// One RFC 4180 CSV field: quoted (with "" for ") when it holds , " CR LF or starts or ends
// with a space; otherwise unchanged. The text itself is never altered.
std::string CsvField(std::string_view text);

// A JSON string literal with its quotes; " \ and control characters are escaped.
std::string JsonString(std::string_view text);

// Text safe to print on a terminal: C0 controls, DEL and the C1 controls U+0080..U+009F
// (which some terminals obey as escape sequences) become '?', so a hostile name cannot move
// the cursor, clear the screen or change colours. Other UTF-8 passes through.
std::string TerminalSafe(std::string_view text);

// Number of code points of UTF-8 text (for aligning columns).
size_t DisplayWidth(std::string_view text);

// `text` padded with spaces on the right (PadRight) or left (PadLeft) to `width` code points;
// longer text unchanged.
std::string PadRight(const std::string& text, size_t width);
std::string PadLeft(const std::string& text, size_t width);

}  // namespace torchscan::report
