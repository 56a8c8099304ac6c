// Who a unix-socket caller is, from the kernel credentials of its connection
// (peer_credentials.h): the login name of its uid, and whether it may cancel anyone's jobs.
// Looked up when the call arrives, so a user added to the admin group counts from their next
// login. gRPC-free.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "daemon/caller.h"
#include "daemon/peer_credentials.h"

namespace torchscan::daemon {

// The login name of `uid` (the passwd database), or the number as text when it has none (e.g.
// a uid from a container that this machine does not know).
std::string LoginName(uid_t uid);

// Whether the caller may cancel anyone's jobs: root (uid 0), or a member of group `admin_gid`
// (admin_group): the group it connected with, or the primary or a supplementary group of its
// login name (getgrouplist). Without `admin_gid` only root.
bool IsLocalAdmin(const PeerCredentials& peer, std::optional<gid_t> admin_gid);

// {LoginName, IsLocalAdmin, on_socket}.
Caller LocalCaller(const PeerCredentials& peer, std::optional<gid_t> admin_gid);

}  // namespace torchscan::daemon
