#include "process/channel.h"

#include <sys/mman.h>
#include <sys/socket.h>

namespace torchscan::process {

bool OpenChannel(const std::string& name, Fd* here, Fd* there, Fd* err) {
  int pair[2] = {-1, -1};
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return false;
  Fd a(pair[0]), b(pair[1]), file(::memfd_create(name.c_str(), MFD_CLOEXEC));
  if (!file.valid()) return false;
  *here = std::move(a);
  *there = std::move(b);
  *err = std::move(file);
  return true;
}

}  // namespace torchscan::process
