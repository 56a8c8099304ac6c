// A benchmark's history, paged: which jobs carry each name (JobSpec.label), in submission
// order, so that the History RPC answers a page from memory without looking at the jobs of
// other names (daemon.h: Daemon::History). gRPC-free; not thread-safe (the daemon holds its
// lock around every call).
//
// Paging: a page token names the last job a page gave, with a check over the name and that
// id, so the next page goes on with the jobs submitted before it. A job submitted between
// two pages is newer than every job already given, so it neither repeats nor shifts a later
// page (the client sees it on its next first page). Tokens are opaque text (web-safe
// base64); the check catches garbage, edits and a token used with another name (it is not a
// secret: a token only positions a page). Tokens stay valid across daemon restarts.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/service.pb.h"

namespace torchscan::daemon {

class HistoryIndex {
 public:
  // Files job `id` under `name`; a job without a name ("") is in no history. Ids sort in
  // submission order (job_store.h); one older than the name's newest is put in its place.
  void Add(const std::string& name, const std::string& id);

  struct Page {
    std::vector<std::string> ids;  // newest first
    std::string next_page_token;   // "" on the last page
  };
  // The page `request` asks for: the ids filed under request.name, newest first, after the
  // one request.page_token names, for which `wanted` is true (the daemon's state filter), at
  // most request.page_size (0: kDefaultHistoryPageSize). next_page_token is set only when a
  // wanted job remains. An unknown name gives an empty page.
  // InvalidArgument naming "name" (empty), "page_size" (negative or above
  // kMaxHistoryPageSize, with the range) or "page_token" (not one this daemon gave for this
  // name; start again with an empty one).
  absl::StatusOr<Page> Select(const v1::HistoryRequest& request,
                              const std::function<bool(const std::string& id)>& wanted) const;

  // The token of a page that ended with job `last_id` of history `name` (for tests).
  static std::string PageToken(const std::string& name, const std::string& last_id);

 private:
  std::unordered_map<std::string, std::vector<std::string>> ids_by_name_;  // each in id order
};

}  // namespace torchscan::daemon
