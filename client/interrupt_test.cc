#include "client/interrupt.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace torchscan {
namespace {

bool WaitFor(const std::atomic<int>& value, int wanted) {
  for (int i = 0; i < 200 && value.load() != wanted; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return value.load() == wanted;
}

TEST(InterruptWatch, TheFirstSignalIsRecordedAndReportedOnce) {
  std::atomic<int> calls{0};
  {
    InterruptWatch watch([&] { ++calls; });
    EXPECT_FALSE(watch.interrupted());
    ::raise(SIGINT);  // would end the test process without the handler
    EXPECT_TRUE(WaitFor(calls, 1));
    EXPECT_TRUE(watch.interrupted());
    EXPECT_EQ(watch.signal(), SIGINT);
    EXPECT_STREQ(InterruptName(watch.signal()), "Ctrl-C");
  }
  // A new watch starts clean, and SIGTERM counts too.
  InterruptWatch again([&] { ++calls; });
  EXPECT_FALSE(again.interrupted());
  ::raise(SIGTERM);
  EXPECT_TRUE(WaitFor(calls, 2));
  EXPECT_EQ(again.signal(), SIGTERM);
}

TEST(InterruptWatch, ASecondSignalExitsAtOnceWith130) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    InterruptWatch watch([] {});
    ::raise(SIGINT);
    ::raise(SIGINT);
    std::this_thread::sleep_for(std::chrono::seconds(5));
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
}

}  // namespace
}  // namespace torchscan
