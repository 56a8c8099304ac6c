// `history NAME --output DIR` keeps each point's report pages in DIR/reports/<job id>.json and
// .html and reuses them on the next run. Job ids are only unique within one daemon's state_dir
// (each daemon counts from job-000001), so DIR/reports/daemon.txt names the daemon the pages
// came from: its address and its state_dir (DaemonInfo.config), which a restart keeps. A run
// against another daemon (or a folder without daemon.txt, written by an older client) must not
// reuse them: ClaimReportCache removes them first, so that every page is fetched again.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "proto/service.pb.h"

namespace torchscan {

inline constexpr const char* kReportCacheOwnerFile = "daemon.txt";

// "address ADDRESS\nstate_dir STATE_DIR\n"; `info` null (Info failed): the state_dir is empty.
std::string ReportCacheOwner(const std::string& address, const v1::DaemonInfo* info);

// Makes `reports_dir` (which exists) a cache of `owner`'s pages: when its daemon.txt holds
// another owner or is missing, removes its *.json and *.html files (`cleared` true; the caller
// says so) and writes daemon.txt. Errors name the file that could not be removed or written;
// then daemon.txt is not written, so that the next run clears the folder again.
absl::Status ClaimReportCache(const std::string& reports_dir, const std::string& owner, bool* cleared);

}  // namespace torchscan
