#include "daemon/peer_credentials.h"

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace torchscan::daemon {
namespace {

TEST(DescriptorOfPeer, OnlyFdNamesHaveOne) {
  EXPECT_EQ(DescriptorOfPeer("fd:12"), 12);
  EXPECT_EQ(DescriptorOfPeer("fd:0"), 0);
  EXPECT_EQ(DescriptorOfPeer("fd:"), std::nullopt);
  EXPECT_EQ(DescriptorOfPeer("fd:-1"), std::nullopt);
  EXPECT_EQ(DescriptorOfPeer("fd:12x"), std::nullopt);
  EXPECT_EQ(DescriptorOfPeer("fd:99999999999"), std::nullopt);
  EXPECT_EQ(DescriptorOfPeer("unix:/run/torchscand/torchscand.sock"), std::nullopt);
  EXPECT_EQ(DescriptorOfPeer("ipv4:127.0.0.1:50051"), std::nullopt);
  EXPECT_EQ(DescriptorOfPeer(""), std::nullopt);
}

TEST(ReadPeerCredentials, AreTheConnectedProcesss) {
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  absl::StatusOr<PeerCredentials> credentials = ReadPeerCredentials(pair[0]);
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  EXPECT_EQ(credentials->uid, ::geteuid());
  EXPECT_EQ(credentials->gid, ::getegid());
  EXPECT_EQ(credentials->pid, ::getpid());
  ::close(pair[0]);
  ::close(pair[1]);

  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  EXPECT_EQ(ReadPeerCredentials(pipe_fds[0]).status().code(), absl::StatusCode::kInternal);  // not a socket
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

TEST(PeerTable, FindsARecordOnlyWhileItsSocketHoldsTheNumber) {
  PeerTable table;
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  const int fd = pair[0];
  const std::string peer = "fd:" + std::to_string(fd);
  EXPECT_EQ(table.Find(peer), std::nullopt);  // nothing recorded
  ASSERT_TRUE(table.Record(fd, PeerCredentials{7, 1001, 1002}).ok());
  ASSERT_TRUE(table.Find(peer).has_value());
  EXPECT_EQ(table.Find(peer)->uid, 1001u);
  EXPECT_EQ(table.Find(peer)->gid, 1002u);
  EXPECT_EQ(table.Find("fd:" + std::to_string(pair[1])), std::nullopt);

  // The socket closes and its number goes to a pipe: the entry no longer answers.
  ::close(fd);
  EXPECT_EQ(table.Find(peer), std::nullopt);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  ASSERT_EQ(pipe_fds[0], fd);
  EXPECT_EQ(table.Find(peer), std::nullopt);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);

  // A new socket with that number answers only once it is recorded, with its own credentials.
  int again[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, again), 0);
  ASSERT_EQ(again[0], fd);
  EXPECT_EQ(table.Find(peer), std::nullopt);
  ASSERT_TRUE(table.Record(fd, PeerCredentials{8, 2001, 2002}).ok());
  EXPECT_EQ(table.Find(peer)->uid, 2001u);
  EXPECT_EQ(table.Record(-1, PeerCredentials{}).code(), absl::StatusCode::kInternal);
  ::close(again[0]);
  ::close(again[1]);
  ::close(pair[1]);
}

}  // namespace
}  // namespace torchscan::daemon
