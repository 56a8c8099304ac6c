#include "process/exit_status.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace torchscan::process {
namespace {

// The raw status of a real child that ran `body`.
template <typename Body>
int StatusOf(Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    body();
    ::_exit(0);
  }
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  return status;
}

TEST(ExitStatus, SignalNames) {
  EXPECT_EQ(SignalName(SIGKILL), "SIGKILL");
  EXPECT_EQ(SignalName(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(SignalName(12345), "signal 12345");
}

TEST(ExitStatus, AnExitIsDecodedWithItsCode) {
  const ExitStatus status = DecodeWaitStatus(StatusOf([] { ::_exit(3); }));
  EXPECT_EQ(status.kind, ExitStatus::Kind::kExited);
  EXPECT_EQ(status.code, 3);
  EXPECT_EQ(status.signal, 0);
}

TEST(ExitStatus, ASignalIsDecodedWithItsNumber) {
  const ExitStatus status = DecodeWaitStatus(StatusOf([] { ::raise(SIGKILL); }));
  EXPECT_EQ(status.kind, ExitStatus::Kind::kSignaled);
  EXPECT_EQ(status.signal, SIGKILL);
}

TEST(ExitStatus, NeitherIsUnreadableAndKeepsTheRawValue) {
  const ExitStatus status = DecodeWaitStatus(-1);
  EXPECT_EQ(status.kind, ExitStatus::Kind::kUnreadable);
  EXPECT_EQ(status.raw, -1);
}

}  // namespace
}  // namespace torchscan::process
