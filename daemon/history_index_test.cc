#include "daemon/history_index.h"

#include <gtest/gtest.h>

#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "daemon/job_store.h"
#include "proto/spec_limits.h"

namespace torchscan::daemon {
namespace {

auto kAll = [](const std::string&) { return true; };

v1::HistoryRequest Request(const std::string& name, int page_size, const std::string& token = "") {
  v1::HistoryRequest request;
  request.set_name(name);
  request.set_page_size(page_size);
  request.set_page_token(token);
  return request;
}

// Jobs 1..n alternately under "resnet" (odd) and "bert" (even).
HistoryIndex Alternating(int n) {
  HistoryIndex index;
  for (int i = 1; i <= n; ++i) index.Add(i % 2 == 1 ? "resnet" : "bert", JobStore::JobId(i));
  return index;
}

std::vector<std::string> Ids(std::initializer_list<int> numbers) {
  std::vector<std::string> ids;
  for (int n : numbers) ids.push_back(JobStore::JobId(n));
  return ids;
}

TEST(HistoryIndex, PagesGoNewestFirstOnlyThroughTheNamesJobs) {
  const HistoryIndex index = Alternating(10);
  absl::StatusOr<HistoryIndex::Page> first = index.Select(Request("resnet", 2), kAll);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->ids, Ids({9, 7}));
  ASSERT_FALSE(first->next_page_token.empty());
  absl::StatusOr<HistoryIndex::Page> second = index.Select(Request("resnet", 2, first->next_page_token), kAll);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->ids, Ids({5, 3}));
  absl::StatusOr<HistoryIndex::Page> last = index.Select(Request("resnet", 2, second->next_page_token), kAll);
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(last->ids, Ids({1}));
  EXPECT_EQ(last->next_page_token, "");
}

TEST(HistoryIndex, AFullLastPageSaysThereIsNoNextOne) {
  const HistoryIndex index = Alternating(8);  // resnet: 7 5 3 1
  absl::StatusOr<HistoryIndex::Page> page = index.Select(Request("resnet", 4), kAll);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->ids, Ids({7, 5, 3, 1}));
  EXPECT_EQ(page->next_page_token, "");
}

TEST(HistoryIndex, PageSizeZeroIsTheDefaultAndTheMaximumIsAllowed) {
  const HistoryIndex index = Alternating(2 * kMaxHistoryPageSize + 2);
  absl::StatusOr<HistoryIndex::Page> page = index.Select(Request("bert", 0), kAll);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->ids.size(), static_cast<size_t>(kDefaultHistoryPageSize));
  page = index.Select(Request("bert", kMaxHistoryPageSize), kAll);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->ids.size(), static_cast<size_t>(kMaxHistoryPageSize));
  EXPECT_EQ(page->ids.front(), JobStore::JobId(2 * kMaxHistoryPageSize + 2));
  page = index.Select(Request("bert", kMaxHistoryPageSize, page->next_page_token), kAll);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->ids, Ids({2}));
}

TEST(HistoryIndex, AJobAddedBetweenPagesNeitherRepeatsNorSkipsOne) {
  HistoryIndex index = Alternating(10);
  absl::StatusOr<HistoryIndex::Page> first = index.Select(Request("bert", 2), kAll);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->ids, Ids({10, 8}));
  index.Add("bert", JobStore::JobId(12));
  absl::StatusOr<HistoryIndex::Page> second = index.Select(Request("bert", 2, first->next_page_token), kAll);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->ids, Ids({6, 4}));
  absl::StatusOr<HistoryIndex::Page> again = index.Select(Request("bert", 2), kAll);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->ids, Ids({12, 10}));
}

TEST(HistoryIndex, OnlyWantedJobsFillAPage) {
  const HistoryIndex index = Alternating(20);
  const std::set<std::string> wanted = {JobStore::JobId(19), JobStore::JobId(11), JobStore::JobId(3)};
  auto filter = [&](const std::string& id) { return wanted.count(id) > 0; };
  absl::StatusOr<HistoryIndex::Page> first = index.Select(Request("resnet", 2), filter);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->ids, Ids({19, 11}));
  absl::StatusOr<HistoryIndex::Page> second = index.Select(Request("resnet", 2, first->next_page_token), filter);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->ids, Ids({3}));
  EXPECT_EQ(second->next_page_token, "");
}

TEST(HistoryIndex, UnnamedJobsAreInNoHistoryAndAnUnknownNameHasNone) {
  HistoryIndex index;
  index.Add("", JobStore::JobId(1));
  index.Add("resnet", JobStore::JobId(3));
  index.Add("resnet", JobStore::JobId(2));  // out of order: put in its place
  index.Add("resnet", JobStore::JobId(3));  // twice: once
  absl::StatusOr<HistoryIndex::Page> page = index.Select(Request("resnet", 0), kAll);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->ids, Ids({3, 2}));
  page = index.Select(Request("gpt", 0), kAll);
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->ids.empty());
  EXPECT_EQ(page->next_page_token, "");
}

void ExpectRefused(const absl::StatusOr<HistoryIndex::Page>& page, const std::string& field, const std::string& fix) {
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(page.status().message(), field + ": ")) << page.status();
  EXPECT_TRUE(absl::StrContains(page.status().message(), fix)) << page.status();
}

TEST(HistoryIndex, BadRequestsAreRefusedNamingTheField) {
  const HistoryIndex index = Alternating(10);
  ExpectRefused(index.Select(Request("", 0), kAll), "name", "--label");
  ExpectRefused(index.Select(Request("resnet", -1), kAll), "page_size", "give 1 to 1000 (0: the default, 100)");
  ExpectRefused(index.Select(Request("resnet", kMaxHistoryPageSize + 1), kAll), "page_size", "1001 is out of range");
  const std::string good = index.Select(Request("resnet", 2), kAll)->next_page_token;
  ExpectRefused(index.Select(Request("resnet", 2, "%%garbage%%"), kAll), "page_token", "start again with an empty");
  ExpectRefused(index.Select(Request("resnet", 2, absl::WebSafeBase64Escape("no dot")), kAll), "page_token",
                "start again");
  // The id edited to skip ahead: its check no longer matches.
  std::string decoded;
  ASSERT_TRUE(absl::WebSafeBase64Unescape(good, &decoded));
  ASSERT_EQ(decoded.substr(0, 10), JobStore::JobId(7));
  decoded.replace(0, 10, JobStore::JobId(3));
  ExpectRefused(index.Select(Request("resnet", 2, absl::WebSafeBase64Escape(decoded)), kAll), "page_token",
                "its check does not match");
  ExpectRefused(index.Select(Request("bert", 2, good), kAll), "page_token", "from another name");
  EXPECT_TRUE(index.Select(Request("resnet", 2, good), kAll).ok());
}

}  // namespace
}  // namespace torchscan::daemon
