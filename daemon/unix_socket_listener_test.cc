// UnixSocketListener with a real gRPC server (the TorchScan service stub, its Info handler
// replaced by one that reports what the PeerTable says about the caller) and real clients.
#include "daemon/unix_socket_listener.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include <grpcpp/create_channel_posix.h>
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/service.grpc.pb.h"

namespace torchscan::daemon {
namespace {

// A short folder for sockets (unix socket paths are limited to 107 bytes).
class SocketDir {
 public:
  SocketDir() {
    char dir[] = "/tmp/tsl-XXXXXX";
    path_ = ::mkdtemp(dir);
  }
  ~SocketDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string socket() const { return path_ + "/s.sock"; }

 private:
  std::string path_;
};

// Info answers "PEER UID" (uid -1 when the table has nothing). A call with metadata "hold"
// waits in the handler until Release() before it looks its peer up.
class WhoAmI final : public v1::TorchScan::Service {
 public:
  explicit WhoAmI(const PeerTable* peers) : peers_(peers) {}

  grpc::Status Info(grpc::ServerContext* context, const v1::InfoRequest*, v1::DaemonInfo* response) override {
    if (context->client_metadata().count("hold") != 0) {
      std::unique_lock<std::mutex> lock(mu_);
      held_peer_ = context->peer();
      changed_.notify_all();
      while (!changed_.wait_for(lock, std::chrono::milliseconds(10), [&] { return released_; })) {
        if (!held_cancelled_ && context->IsCancelled()) {
          held_cancelled_ = true;
          changed_.notify_all();
        }
      }
    }
    const std::optional<PeerCredentials> found = peers_->Find(context->peer());
    response->set_version(absl::StrCat(context->peer(), " ", found ? static_cast<int64_t>(found->uid) : -1));
    std::lock_guard<std::mutex> lock(mu_);
    if (context->client_metadata().count("hold") != 0) held_answer_ = response->version();
    changed_.notify_all();
    return grpc::Status::OK;
  }

  std::string WaitForHeldPeer() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, std::chrono::seconds(10), [&] { return !held_peer_.empty(); });
    return held_peer_;
  }
  // True once the held call saw its connection go (within 10 s).
  bool WaitForHeldCancelled() {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] { return held_cancelled_; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    changed_.notify_all();
  }
  // What the held call answered once released ("" if it did not finish within 10 s).
  std::string WaitForHeldAnswer() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, std::chrono::seconds(10), [&] { return !held_answer_.empty(); });
    return held_answer_;
  }

 private:
  const PeerTable* peers_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::string held_peer_, held_answer_;
  bool released_ = false;
  bool held_cancelled_ = false;
};

// A started server with no port of its own, and a listener on `dir`'s socket feeding it.
struct Served {
  explicit Served(const SocketDir& dir, UnixSocketListener::CredentialReader read = ReadPeerCredentials,
                  mode_t mode = 0660)
      : service(&peers) {
    grpc::ServerBuilder builder;
    builder.RegisterService(&service);
    server = builder.BuildAndStart();
    absl::StatusOr<std::unique_ptr<UnixSocketListener>> opened =
        UnixSocketListener::Open("listen[0]", dir.socket(), mode, "", &peers, std::move(read));
    EXPECT_TRUE(opened.ok()) << opened.status();
    if (opened.ok()) listener = *std::move(opened);
    if (listener) listener->Start(server.get());
  }
  ~Served() {
    if (listener) listener->Stop();
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }
  PeerTable peers;
  WhoAmI service;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<UnixSocketListener> listener;
};

// A channel with a connection of its own (no subchannel shared with an earlier channel).
std::shared_ptr<grpc::Channel> NewConnection(const std::string& socket) {
  grpc::ChannelArguments own_connection;
  own_connection.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel("unix:" + socket, grpc::InsecureChannelCredentials(), own_connection);
}

// Info over `channel`: the handler's answer, or the status message.
std::string AskWho(std::shared_ptr<grpc::Channel> channel) {
  auto stub = v1::TorchScan::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::DaemonInfo info;
  const grpc::Status status = stub->Info(&context, v1::InfoRequest(), &info);
  return status.ok() ? info.version() : "error: " + status.error_message();
}

std::string AskWho(const std::string& socket) { return AskWho(NewConnection(socket)); }

TEST(UnixSocketListener, CallsCarryTheKernelCredentialsOfTheirConnection) {
  SocketDir dir;
  Served served(dir);
  const std::string answer = AskWho(dir.socket());
  // gRPC names a handed-over descriptor "fd:N"; the table knows it as this process's uid.
  EXPECT_TRUE(absl::StartsWith(answer, "fd:")) << answer;
  EXPECT_TRUE(absl::EndsWith(answer, absl::StrCat(" ", ::getuid()))) << answer;
  EXPECT_EQ(served.peers.Find("unix:" + dir.socket()), std::nullopt);  // only "fd:N" names are looked up
}

TEST(UnixSocketListener, KeepsTheUnixSocketSemantics) {
  SocketDir dir;
  {
    Served served(dir, ReadPeerCredentials, 0600);
    struct stat info;
    ASSERT_EQ(::stat(dir.socket().c_str(), &info), 0);
    EXPECT_TRUE(S_ISSOCK(info.st_mode));
    EXPECT_EQ(info.st_mode & 0777, 0600u);
    PeerTable other;  // a second listener on a live socket is refused
    absl::StatusOr<std::unique_ptr<UnixSocketListener>> second =
        UnixSocketListener::Open("listen[1]", dir.socket(), 0660, "", &other);
    EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_TRUE(absl::StrContains(second.status().message(), "listen[1]: another process is listening"))
        << second.status();
  }
  struct stat info;
  EXPECT_NE(::stat(dir.socket().c_str(), &info), 0) << "Stop() leaves the socket file behind";

  // A stale socket file (bound, never listened on, like one a killed daemon leaves) is replaced.
  const int stale = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, dir.socket().c_str(), sizeof(address.sun_path) - 1);
  ASSERT_EQ(::bind(stale, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ::close(stale);
  {
    Served served(dir);
    EXPECT_TRUE(absl::StartsWith(AskWho(dir.socket()), "fd:"));
  }
  std::ofstream(dir.socket()) << "not a socket";
  PeerTable peers;
  absl::StatusOr<std::unique_ptr<UnixSocketListener>> file =
      UnixSocketListener::Open("listen[0]", dir.socket(), 0660, "", &peers);
  EXPECT_EQ(file.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(file.status().message(), "exists and is not a socket")) << file.status();
  absl::StatusOr<std::unique_ptr<UnixSocketListener>> missing =
      UnixSocketListener::Open("listen[0]", "/nonexistent-folder/s.sock", 0660, "", &peers);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(missing.status().message(), "does its folder exist")) << missing.status();
}

TEST(UnixSocketListener, AConnectionWhoseCredentialsCannotBeReadIsClosed) {
  SocketDir dir;
  Served served(dir, [](int) -> absl::StatusOr<PeerCredentials> { return absl::InternalError("no credentials"); });
  EXPECT_TRUE(absl::StartsWith(AskWho(dir.socket()), "error: ")) << "a connection without credentials was served";
}

// Connects the socket `fd` to `path`; true on success.
bool ConnectTo(int fd, const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  return ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
}

// The fd-reuse hazard: once a connection is gone its descriptor number can come back for the
// next one. A call still running for the old connection must never see the new one's
// credentials. Each accepted connection gets a distinct fake uid (1000, 1001, ...).
TEST(UnixSocketListener, AnIdentityNeverPassesToALaterConnection) {
  SocketDir dir;
  std::atomic<int> accepted{0};
  Served served(dir, [&](int) -> absl::StatusOr<PeerCredentials> {
    return PeerCredentials{0, static_cast<uid_t>(1000 + accepted++), 0};
  });
  // The client ends of every connection are made first, so that once A's server end is gone
  // its number is the lowest free one and the next accepted connection would get it.
  std::vector<int> later(8);
  for (int& fd : later) fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int a = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int a_kept = ::dup(a);  // to tear A down at the socket level
  ASSERT_TRUE(ConnectTo(a, dir.socket()));
  std::thread held([a] {
    auto stub = v1::TorchScan::NewStub(grpc::CreateInsecureChannelFromFd("a", a));
    grpc::ClientContext context;
    context.AddMetadata("hold", "1");
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    v1::DaemonInfo info;
    stub->Info(&context, v1::InfoRequest(), &info);
  });
  const std::string held_peer = served.service.WaitForHeldPeer();
  ASSERT_TRUE(absl::StartsWith(held_peer, "fd:")) << held_peer;
  EXPECT_EQ(served.peers.Find(held_peer)->uid, 1000u);

  // A's connection dies while its call is still in the handler (the server sees it go); then
  // more connections come and stay.
  ::shutdown(a_kept, SHUT_RDWR);
  ::close(a_kept);
  ASSERT_TRUE(served.service.WaitForHeldCancelled());
  held.join();  // the client side of A is gone too
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (size_t i = 0; i < later.size(); ++i) {
    ASSERT_TRUE(ConnectTo(later[i], dir.socket()));
    channels.push_back(grpc::CreateInsecureChannelFromFd("later", later[i]));
    const std::string answer = AskWho(channels.back());
    EXPECT_TRUE(absl::EndsWith(answer, absl::StrCat(" ", 1001 + i))) << answer;
    EXPECT_FALSE(absl::StartsWith(answer, held_peer + " ")) << "descriptor reused while a call on it still ran";
  }
  served.service.Release();
  // The held call found A's credentials, or none; never a later connection's.
  const std::string answer = served.service.WaitForHeldAnswer();
  EXPECT_TRUE(answer == held_peer + " 1000" || answer == held_peer + " -1") << answer;
}

}  // namespace
}  // namespace torchscan::daemon
