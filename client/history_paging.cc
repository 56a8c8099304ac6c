#include "client/history_paging.h"

#include <algorithm>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "proto/spec_limits.h"

namespace torchscan {

absl::StatusOr<v1::HistoryResponse> ReadHistory(const HistoryPageSource& source, const v1::HistoryRequest& request,
                                                int limit, const std::function<bool(const v1::Job&)>& found) {
  v1::HistoryResponse all;
  v1::HistoryRequest page_request = request;
  page_request.clear_page_token();
  std::set<std::string> tokens_seen;
  while (true) {
    const int wanted = limit > 0 ? std::min(kMaxHistoryPageSize, limit - all.jobs_size()) : kMaxHistoryPageSize;
    page_request.set_page_size(wanted);
    absl::StatusOr<v1::HistoryResponse> page = source(page_request);
    if (!page.ok()) return page.status();
    if (page->jobs_size() > wanted)
      return absl::InternalError(absl::StrCat("history: the daemon sent ", page->jobs_size(), " jobs for a page of ",
                                              wanted, "; it does not follow HistoryRequest.page_size"));
    bool hit = false;
    for (v1::Job& job : *page->mutable_jobs()) {
      if (found && found(job)) hit = true;
      *all.add_jobs() = std::move(job);
    }
    const std::string& next = page->next_page_token();
    all.set_next_page_token(next);
    if (next.empty() || hit || (limit > 0 && all.jobs_size() >= limit)) return all;
    if (page->jobs_size() == 0 || !tokens_seen.insert(next).second)
      return absl::InternalError(absl::StrCat("history: the daemon's pages do not end (",
                                              page->jobs_size() == 0 ? "an empty page" : "a repeated page token",
                                              " with more to follow, after ", all.jobs_size(), " jobs)"));
    page_request.set_page_token(next);
  }
}

}  // namespace torchscan
