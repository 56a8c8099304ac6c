// "Did you mean ...?": the known name closest to a mistyped one, for messages about JSON
// field names, command-line flags and subcommands. Pure; no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace torchscan {

// The candidate closest to `typo`, compared case-insensitively with '-' and '_' ignored
// and leading dashes dropped (so "minRunTime" meets "min_run_time_s", "--min-runtime" meets
// "--min-run-time"), when it is close enough to be a typo: at most max(2, length / 3)
// single-character edits. Ties go to the earlier candidate. "" when none is that close, or
// for an empty `typo`.
std::string NearestName(std::string_view typo, const std::vector<std::string>& candidates);

}  // namespace torchscan
