#include "process/pid_line.h"

#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

namespace torchscan::process {
namespace {

class Pair {
 public:
  Pair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  ~Pair() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  int reader() const { return fds_[0]; }
  int writer() const { return fds_[1]; }
  void Write(const std::string& text) const {
    ASSERT_EQ(::write(fds_[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }
  void CloseWriter() {
    ::close(fds_[1]);
    fds_[1] = -1;
  }

 private:
  int fds_[2] = {-1, -1};
};

TEST(PidLine, RoundTripLeavesWhatFollowsUnread) {
  Pair pair;
  WritePidLine(pair.writer(), 4242);
  pair.Write("result\n");
  EXPECT_EQ(ReadPidLine(pair.reader(), 1000), 4242);
  char rest[8] = {};
  ASSERT_EQ(::read(pair.reader(), rest, 7), 7);
  EXPECT_EQ(std::string(rest), "result\n");
}

TEST(PidLine, ZeroSaysNotForked) {
  Pair pair;
  WritePidLine(pair.writer(), 0);
  EXPECT_EQ(ReadPidLine(pair.reader(), 1000), 0);
}

TEST(PidLine, MissingOrMalformedLinesAreZero) {
  for (const std::string text : {"abc\n", "-5\n", "12", "123456789012345678901234567890123456\n"}) {
    Pair pair;
    pair.Write(text);
    pair.CloseWriter();
    EXPECT_EQ(ReadPidLine(pair.reader(), 1000), 0) << text;
  }
  Pair silent;  // nothing within the timeout
  EXPECT_EQ(ReadPidLine(silent.reader(), 10), 0);
}

}  // namespace
}  // namespace torchscan::process
