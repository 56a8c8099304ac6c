#include "daemon/history_index.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "io/fnv1a.h"
#include "proto/spec_limits.h"

namespace torchscan::daemon {
namespace {

std::string Check(const std::string& name, const std::string& id) {
  // Fnv1a64 is the same in every process: a token outlives a restart.
  return absl::StrFormat(
      "%016x", Fnv1a64(absl::StrCat("torchscan history v1", std::string(1, '\0'), name, std::string(1, '\0'), id)));
}

absl::Status BadToken(const std::string& name, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("page_token: ", why, "; it is not one this daemon gave for name \"", name,
                   "\" (damaged, or from another name's history): start again with an empty page_token"));
}

// The id of the last job the page before gave.
absl::StatusOr<std::string> LastIdOf(const std::string& name, const std::string& token) {
  std::string decoded;
  if (!absl::WebSafeBase64Unescape(token, &decoded)) return BadToken(name, "not web-safe base64");
  const size_t dot = decoded.rfind('.');
  if (dot == std::string::npos) return BadToken(name, "malformed");
  const std::string id = decoded.substr(0, dot);
  if (decoded.substr(dot + 1) != Check(name, id)) return BadToken(name, "its check does not match");
  return id;
}

}  // namespace

void HistoryIndex::Add(const std::string& name, const std::string& id) {
  if (name.empty()) return;
  std::vector<std::string>& ids = ids_by_name_[name];
  if (ids.empty() || ids.back() < id) {
    ids.push_back(id);
  } else {
    auto at = std::lower_bound(ids.begin(), ids.end(), id);
    if (at == ids.end() || *at != id) ids.insert(at, id);
  }
}

std::string HistoryIndex::PageToken(const std::string& name, const std::string& last_id) {
  return absl::WebSafeBase64Escape(absl::StrCat(last_id, ".", Check(name, last_id)));
}

absl::StatusOr<HistoryIndex::Page> HistoryIndex::Select(
    const v1::HistoryRequest& request, const std::function<bool(const std::string& id)>& wanted) const {
  const std::string& name = request.name();
  if (name.empty())
    return absl::InvalidArgumentError(
        "name: required; give the benchmark's name: the label its jobs were submitted with (--label)");
  if (request.page_size() < 0 || request.page_size() > kMaxHistoryPageSize)
    return absl::InvalidArgumentError(absl::StrCat("page_size: ", request.page_size(), " is out of range; give 1 to ",
                                                   kMaxHistoryPageSize, " (0: the default, ", kDefaultHistoryPageSize,
                                                   ")"));
  const size_t page_size = request.page_size() == 0 ? kDefaultHistoryPageSize : request.page_size();
  std::string after;  // the last id given ("": the first page)
  if (!request.page_token().empty()) {
    absl::StatusOr<std::string> last = LastIdOf(name, request.page_token());
    if (!last.ok()) return last.status();
    after = *std::move(last);
  }
  Page page;
  auto found = ids_by_name_.find(name);
  if (found == ids_by_name_.end()) return page;
  const std::vector<std::string>& ids = found->second;
  // Older than `after`: before its place in submission order.
  size_t end = after.empty() ? ids.size() : std::lower_bound(ids.begin(), ids.end(), after) - ids.begin();
  while (end > 0) {
    const std::string& id = ids[--end];
    if (!wanted(id)) continue;
    if (page.ids.size() == page_size) {  // one more remains: there is a next page
      page.next_page_token = PageToken(name, page.ids.back());
      break;
    }
    page.ids.push_back(id);
  }
  return page;
}

}  // namespace torchscan::daemon
