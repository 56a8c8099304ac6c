// The end of a child's output for a diagnostic: the last `max_chars` characters, "..." first
// when cut, surrounding whitespace stripped. Shared by the RSS and instruction-count passes.
#pragma once

#include <string>

#include "absl/strings/ascii.h"

namespace torchscan::passes {

inline std::string TextTail(const std::string& text, size_t max_chars = 2000) {
  std::string tail = text.size() > max_chars ? "..." + text.substr(text.size() - max_chars) : text;
  return std::string(absl::StripAsciiWhitespace(tail));
}

}  // namespace torchscan::passes
