#include "client/history_paging.h"

#include <string>

#include <gtest/gtest.h>

#include "proto/spec_limits.h"

namespace torchscan {
namespace {

// A daemon's history of `total` jobs (ids "j<N>", newest first) served in pages whose token is
// the index of the next job; records every request.
struct FakeDaemon {
  int total = 0;
  std::vector<v1::HistoryRequest> requests{};

  absl::StatusOr<v1::HistoryResponse> operator()(const v1::HistoryRequest& request) {
    requests.push_back(request);
    const int start = request.page_token().empty() ? 0 : std::stoi(request.page_token());
    v1::HistoryResponse page;
    int i = start;
    for (; i < total && i < start + request.page_size(); ++i) page.add_jobs()->set_id("j" + std::to_string(i));
    if (i < total) page.set_next_page_token(std::to_string(i));
    return page;
  }
};

v1::HistoryRequest Named(const std::string& name) {
  v1::HistoryRequest request;
  request.set_name(name);
  request.add_states(v1::Job::succeeded);
  return request;
}

TEST(ReadHistory, ReadsEveryPageInOrderWithoutALimit) {
  FakeDaemon daemon{2500};
  absl::StatusOr<v1::HistoryResponse> all = ReadHistory(std::ref(daemon), Named("bert"), 0);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->jobs_size(), 2500);
  for (int i = 0; i < 2500; ++i) ASSERT_EQ(all->jobs(i).id(), "j" + std::to_string(i));
  EXPECT_EQ(all->next_page_token(), "");
  ASSERT_EQ(daemon.requests.size(), 3u);
  for (const v1::HistoryRequest& r : daemon.requests) {
    EXPECT_EQ(r.page_size(), kMaxHistoryPageSize);
    EXPECT_EQ(r.name(), "bert");
    ASSERT_EQ(r.states_size(), 1);
  }
  EXPECT_EQ(daemon.requests[0].page_token(), "");
  EXPECT_EQ(daemon.requests[2].page_token(), "2000");
}

TEST(ReadHistory, ALimitAsksForNoMoreThanItNeedsAndSaysWhereToGoOn) {
  FakeDaemon daemon{2500};
  absl::StatusOr<v1::HistoryResponse> newest = ReadHistory(std::ref(daemon), Named("bert"), 1200);
  ASSERT_TRUE(newest.ok()) << newest.status();
  EXPECT_EQ(newest->jobs_size(), 1200);
  EXPECT_EQ(newest->next_page_token(), "1200");
  ASSERT_EQ(daemon.requests.size(), 2u);
  EXPECT_EQ(daemon.requests[1].page_size(), 200);
}

TEST(ReadHistory, AHistoryShorterThanTheLimitEndsAtTheLastPage) {
  FakeDaemon daemon{3};
  absl::StatusOr<v1::HistoryResponse> all = ReadHistory(std::ref(daemon), Named("bert"), 200);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->jobs_size(), 3);
  EXPECT_EQ(daemon.requests.size(), 1u);
  FakeDaemon empty{0};
  absl::StatusOr<v1::HistoryResponse> none = ReadHistory(std::ref(empty), Named("bert"), 0);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->jobs_size(), 0);
}

TEST(ReadHistory, StopsAfterThePageWhereTheJobSoughtIs) {
  FakeDaemon daemon{5000};
  absl::StatusOr<v1::HistoryResponse> found =
      ReadHistory(std::ref(daemon), Named("bert"), 0, [](const v1::Job& j) { return j.id() == "j1500"; });
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->jobs_size(), 2000);
  EXPECT_EQ(daemon.requests.size(), 2u);
}

TEST(ReadHistory, ADaemonWhosePagesNeverEndIsAnError) {
  int calls = 0;
  const HistoryPageSource repeating = [&](const v1::HistoryRequest&) -> absl::StatusOr<v1::HistoryResponse> {
    ++calls;
    v1::HistoryResponse page;
    page.add_jobs()->set_id("j");
    page.set_next_page_token("same");
    return page;
  };
  absl::StatusOr<v1::HistoryResponse> r = ReadHistory(repeating, Named("bert"), 0);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(r.status().message().find("repeated page token"), std::string::npos) << r.status();
  EXPECT_EQ(calls, 2);

  const HistoryPageSource empty_with_more = [](const v1::HistoryRequest&) -> absl::StatusOr<v1::HistoryResponse> {
    v1::HistoryResponse page;
    page.set_next_page_token("more");
    return page;
  };
  EXPECT_NE(ReadHistory(empty_with_more, Named("bert"), 0).status().message().find("an empty page"), std::string::npos);

  const HistoryPageSource too_many = [](const v1::HistoryRequest& request) -> absl::StatusOr<v1::HistoryResponse> {
    v1::HistoryResponse page;
    for (int i = 0; i <= request.page_size(); ++i) page.add_jobs();
    return page;
  };
  EXPECT_EQ(ReadHistory(too_many, Named("bert"), 10).status().code(), absl::StatusCode::kInternal);
}

TEST(ReadHistory, TheSourcesErrorIsReturned) {
  const HistoryPageSource refusing = [](const v1::HistoryRequest&) -> absl::StatusOr<v1::HistoryResponse> {
    return absl::InvalidArgumentError("name: empty");
  };
  EXPECT_EQ(ReadHistory(refusing, Named(""), 0).status(), absl::InvalidArgumentError("name: empty"));
}

}  // namespace
}  // namespace torchscan
