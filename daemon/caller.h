// Who a call to torchscand comes from, once authenticated (access_rules.h): a token's owner
// (token_file.h) or, on a unix socket, the login name of the connected process's uid
// (local_caller.h). The same person is the same `user` either way, since token owners are
// named by their login names.
#pragma once

#include <string>

namespace torchscan::daemon {

struct Caller {
  std::string user;        // token owner, or the login name of a unix-socket caller
  bool admin = false;      // may cancel anyone's jobs
  bool on_socket = false;  // came over a unix socket, identified by the kernel (SO_PEERCRED)
};

}  // namespace torchscan::daemon
