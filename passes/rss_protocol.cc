#include "passes/rss_protocol.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace torchscan::passes {
namespace {

constexpr absl::string_view kPrefix = "torchscan_rss_child ";

std::optional<int64_t> NonNegative(absl::string_view text) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(text, &value) || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::optional<int64_t> ParseVmHwmBytes(absl::string_view proc_status) {
  for (absl::string_view line : absl::StrSplit(proc_status, '\n')) {
    if (!absl::ConsumePrefix(&line, "VmHWM:")) continue;
    line = absl::StripAsciiWhitespace(line);
    if (!absl::ConsumeSuffix(&line, "kB")) return std::nullopt;
    const auto kib = NonNegative(absl::StripAsciiWhitespace(line));
    if (!kib || *kib > (int64_t{1} << 53)) return std::nullopt;
    return *kib * 1024;
  }
  return std::nullopt;
}

std::string FormatRssChildLine(const RssChildResult& result) {
  return absl::StrCat(kPrefix, "vm_hwm_bytes=", result.vm_hwm_bytes, " calls=", result.calls,
                      " intra_op_threads=", result.intra_op_threads, " inter_op_threads=", result.inter_op_threads);
}

std::optional<RssChildResult> ParseRssChildOutput(absl::string_view stdout_text) {
  std::optional<RssChildResult> last;
  for (absl::string_view line : absl::StrSplit(stdout_text, '\n')) {
    line = absl::StripTrailingAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, kPrefix)) continue;
    std::optional<int64_t> bytes, calls, intra, inter;
    for (absl::string_view field : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
      if (absl::ConsumePrefix(&field, "vm_hwm_bytes=")) bytes = NonNegative(field);
      else if (absl::ConsumePrefix(&field, "calls=")) calls = NonNegative(field);
      else if (absl::ConsumePrefix(&field, "intra_op_threads=")) intra = NonNegative(field);
      else if (absl::ConsumePrefix(&field, "inter_op_threads=")) inter = NonNegative(field);
    }
    if (bytes && calls && intra && inter) last = RssChildResult{*bytes, *calls, *intra, *inter};
  }
  return last;
}

}  // namespace torchscan::passes
