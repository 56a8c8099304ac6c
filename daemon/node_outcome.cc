#include "daemon/node_outcome.h"

#include "absl/strings/str_cat.h"

namespace torchscan::daemon {

std::string FormatNodeOutcome(const JobRunOutcome& outcome, const std::string& host) {
  const char* state = outcome.state == v1::Job::succeeded ? "succeeded" : outcome.killed ? "killed" : "failed";
  return absl::StrCat(state, "\n", host, "\n", outcome.error);
}

std::optional<NodeOutcome> ParseNodeOutcome(std::string_view text) {
  const size_t first = text.find('\n');
  if (first == std::string_view::npos) return std::nullopt;
  const size_t second = text.find('\n', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const std::string_view state = text.substr(0, first);
  NodeOutcome parsed;
  parsed.host = std::string(text.substr(first + 1, second - first - 1));
  parsed.outcome.error = std::string(text.substr(second + 1));
  if (state == "succeeded") {
    parsed.outcome.state = v1::Job::succeeded;
  } else if (state == "killed") {
    parsed.outcome.killed = true;
  } else if (state != "failed") {
    return std::nullopt;
  }
  return parsed;
}

}  // namespace torchscan::daemon
