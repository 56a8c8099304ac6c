// Reading a benchmark's history through the History RPC, page after page, for
// `torchscan-client history NAME`. Pure: the pages come from a function (DaemonClient::History
// in the client, a fake in tests); no gRPC here.
#pragma once

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/service.pb.h"

namespace torchscan {

// `history NAME` without --limit: the newest 200 jobs (0 = every job).
inline constexpr int kDefaultHistoryLimit = 200;

using HistoryPageSource = std::function<absl::StatusOr<v1::HistoryResponse>(const v1::HistoryRequest&)>;

// Asks `source` for the pages of `request` (its name and states; page_size and page_token are
// set here: pages of at most kMaxHistoryPageSize jobs, the last one no bigger than `limit`
// needs) and returns their jobs in order (newest first), with next_page_token set to where a
// later read would go on ("" when nothing is left). Stops after `limit` jobs (0: no limit), at
// the last page, or after the page in which `found` (may be null) returned true for a job.
// Errors: the source's own; Internal naming the daemon's fault when a page repeats an
// earlier page token or is empty but says more follows (either would loop forever), or when
// a page holds more jobs than asked for.
absl::StatusOr<v1::HistoryResponse> ReadHistory(const HistoryPageSource& source, const v1::HistoryRequest& request,
                                                int limit, const std::function<bool(const v1::Job&)>& found = nullptr);

}  // namespace torchscan
