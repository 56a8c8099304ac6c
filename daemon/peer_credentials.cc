#include "daemon/peer_credentials.h"

#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace torchscan::daemon {

absl::StatusOr<PeerCredentials> ReadPeerCredentials(int fd) {
  ucred credentials{};
  socklen_t size = sizeof(credentials);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0 || size != sizeof(credentials))
    return absl::InternalError(
        absl::StrCat("cannot read the peer credentials (SO_PEERCRED) of descriptor ", fd, ": ", std::strerror(errno)));
  return PeerCredentials{credentials.pid, credentials.uid, credentials.gid};
}

std::optional<int> DescriptorOfPeer(std::string_view peer) {
  constexpr std::string_view kPrefix = "fd:";
  if (peer.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const absl::string_view number(peer.data() + kPrefix.size(), peer.size() - kPrefix.size());
  int fd = -1;
  if (number.empty() || !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      !absl::SimpleAtoi(number, &fd))
    return std::nullopt;
  return fd;
}

absl::Status PeerTable::Record(int fd, const PeerCredentials& credentials) {
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return absl::InternalError(absl::StrCat("cannot fstat descriptor ", fd, ": ", std::strerror(errno)));
  std::lock_guard<std::mutex> lock(mu_);
  entries_[fd] = Entry{credentials, info.st_dev, info.st_ino};
  return absl::OkStatus();
}

std::optional<PeerCredentials> PeerTable::Find(std::string_view peer) const {
  const std::optional<int> fd = DescriptorOfPeer(peer);
  if (!fd) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(*fd);
  if (it == entries_.end()) return std::nullopt;
  struct stat info;
  if (::fstat(*fd, &info) != 0 || !S_ISSOCK(info.st_mode) || info.st_dev != it->second.device ||
      info.st_ino != it->second.inode)
    return std::nullopt;
  return it->second.credentials;
}

}  // namespace torchscan::daemon
