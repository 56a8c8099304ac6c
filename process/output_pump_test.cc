#include "process/output_pump.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace torchscan::process {
namespace {

struct Piped {
  Piped() { EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0); }
  ~Piped() {
    if (fds[1] >= 0) ::close(fds[1]);
  }
  void Write(const std::string& text) {
    ASSERT_EQ(::write(fds[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }
  void Close() {
    ::close(fds[1]);
    fds[1] = -1;
  }
  int fds[2] = {-1, -1};
};

TEST(OutputPump, HandsOnCompleteLinesAndTheLastPartOneAtEnd) {
  Piped pipe;
  std::vector<std::string> lines;
  OutputPump pump(pipe.fds[0], [&](const std::string& line) { lines.push_back(line); });
  pipe.Write("one\ntwo\nthr");
  pump.Read();
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two"}));
  EXPECT_FALSE(pump.eof());
  pipe.Write("ee");
  pipe.Close();
  pump.Read();
  EXPECT_TRUE(pump.eof());
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "three"}));
  pump.Finish(/*deliver=*/true);
  EXPECT_TRUE(pump.closed());
}

TEST(OutputPump, LongLinesComeInPieces) {
  Piped pipe;
  std::vector<std::string> lines;
  OutputPump pump(pipe.fds[0], [&](const std::string& line) { lines.push_back(line); });
  const std::string long_line(64 * 1024 + 10, 'x');
  // Written from another process would not fit the pipe at once: read while writing.
  for (size_t at = 0; at < long_line.size(); at += 4096) {
    pipe.Write(long_line.substr(at, 4096));
    pump.Read();
  }
  pipe.Write("\n");
  pipe.Close();
  pump.Read();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].size(), 64u * 1024);
  EXPECT_EQ(lines[1].size(), 10u);
}

TEST(OutputPump, FinishWithoutDeliveryDropsWhatIsLeft) {
  Piped pipe;
  std::vector<std::string> lines;
  OutputPump pump(pipe.fds[0], [&](const std::string& line) { lines.push_back(line); });
  pipe.Write("late\n");
  pump.Finish(/*deliver=*/false);
  EXPECT_TRUE(lines.empty());
  EXPECT_TRUE(pump.closed());
}

}  // namespace
}  // namespace torchscan::process
