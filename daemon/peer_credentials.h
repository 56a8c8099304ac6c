// Who is on the other end of each unix-socket connection torchscand accepted, as the kernel
// says (SO_PEERCRED: the uid, gid and pid of the process that connected), looked up by the
// peer name gRPC gives the calls on that connection ("fd:N" for a descriptor handed over with
// grpc::AddInsecureChannelFromFd, see unix_socket_listener.h). gRPC-free.
//
// Nothing a client sends can change these credentials: they are read from the socket when it
// is accepted. A descriptor number is reused once gRPC closes it; gRPC closes it only when the
// connection's transport is destroyed, after every call on it has ended (gRPC 1.51;
// unix_socket_listener_test checks it), so a call that looks its peer up while it runs finds
// its own connection. Record() replaces the entry of a reused number, and Find() checks that
// descriptor N is still the socket that was recorded (the same inode), so an entry never
// outlives its socket into another file.
#pragma once

#include <sys/types.h>

#include <map>
#include <mutex>
#include <optional>
#include <string_view>

#include "absl/status/statusor.h"

namespace torchscan::daemon {

struct PeerCredentials {
  pid_t pid = 0;  // the process that connected (it may have exited since)
  uid_t uid = 0;
  gid_t gid = 0;  // its effective group when it connected
};

// SO_PEERCRED of the connected unix socket `fd`. Internal naming errno when the option cannot
// be read (not a unix socket, closed descriptor).
absl::StatusOr<PeerCredentials> ReadPeerCredentials(int fd);

// The descriptor number of a gRPC peer name "fd:N"; nullopt for any other name ("unix:...",
// "ipv4:...", "fd:" without a number).
std::optional<int> DescriptorOfPeer(std::string_view peer);

// Thread-safe.
class PeerTable {
 public:
  // Records the credentials of the connected socket `fd` (replacing what a previous socket with
  // that number left). Internal when fstat(fd) fails.
  absl::Status Record(int fd, const PeerCredentials& credentials);

  // The credentials recorded for the connection gRPC calls `peer`, or nullopt when `peer` is not
  // "fd:N", nothing was recorded for N, or descriptor N is no longer the socket recorded.
  std::optional<PeerCredentials> Find(std::string_view peer) const;

 private:
  struct Entry {
    PeerCredentials credentials;
    dev_t device = 0;
    ino_t inode = 0;
  };
  mutable std::mutex mu_;
  std::map<int, Entry> entries_;  // by descriptor number
};

}  // namespace torchscan::daemon
