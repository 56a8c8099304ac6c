#include "daemon/local_caller.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

namespace torchscan::daemon {
namespace {

// The passwd entry of `uid` (name and primary group), or nullopt.
struct Account {
  std::string name;
  gid_t gid = 0;
};

std::optional<Account> FindAccount(uid_t uid) {
  std::vector<char> buffer(16384);
  for (;;) {
    passwd entry{};
    passwd* found = nullptr;
    const int error = ::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found);
    if (error == ERANGE && buffer.size() < (1u << 20)) {
      buffer.resize(buffer.size() * 2);
      continue;
    }
    if (error != 0 || found == nullptr) return std::nullopt;
    return Account{found->pw_name, found->pw_gid};
  }
}

// The primary and supplementary groups of `account`.
std::vector<gid_t> GroupsOf(const Account& account) {
  std::vector<gid_t> groups(64);
  for (;;) {
    int count = static_cast<int>(groups.size());
    if (::getgrouplist(account.name.c_str(), account.gid, groups.data(), &count) >= 0) {
      groups.resize(count);
      return groups;
    }
    if (count <= static_cast<int>(groups.size()) || count > 65536) return {account.gid};
    groups.resize(count);
  }
}

}  // namespace

std::string LoginName(uid_t uid) {
  const std::optional<Account> account = FindAccount(uid);
  return account ? account->name : std::to_string(uid);
}

bool IsLocalAdmin(const PeerCredentials& peer, std::optional<gid_t> admin_gid) {
  if (peer.uid == 0) return true;
  if (!admin_gid) return false;
  if (peer.gid == *admin_gid) return true;
  const std::optional<Account> account = FindAccount(peer.uid);
  if (!account) return false;
  const std::vector<gid_t> groups = GroupsOf(*account);
  return std::find(groups.begin(), groups.end(), *admin_gid) != groups.end();
}

Caller LocalCaller(const PeerCredentials& peer, std::optional<gid_t> admin_gid) {
  return Caller{LoginName(peer.uid), IsLocalAdmin(peer, admin_gid), true};
}

}  // namespace torchscan::daemon
