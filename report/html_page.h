// The start of every TorchScan HTML page (report/html_renderer.h, report/history_html.h),
// so that they look alike and stay offline: doctype, charset, viewport, a
// Content-Security-Policy that allows no script and no external resource (only inline style
// and data: images), the title, and one <style> element with the shared style sheet and the
// page's own rules. Ends with "<body><main>"; the page closes them.
#pragma once

#include <string>
#include <string_view>

namespace torchscan::report {

// Appends the page start to *out. `title` is text (escaped here); `extra_style` is CSS that
// the page itself writes (not escaped: never pass user text).
void AppendHtmlPageStart(std::string_view title, std::string_view extra_style, std::string* out);

// The same style sheet with every rule scoped to the element of class `root_class` (its
// :root, body and main rules apply to that element), for a fragment shown inside someone
// else's page (a notebook cell) that must not restyle it.
std::string HtmlStyleScopedTo(std::string_view root_class);

}  // namespace torchscan::report
