#include "process/stdio.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace torchscan::process {

void Stdio::Into(SetUp* setup) const {
  setup->stdin_fd = in.get();
  setup->stdout_fd = out_write.get();
  setup->stderr_fd = err.get();
}

void Stdio::CloseChildEnds() {
  out_write.Reset();
  err.Reset();
  in.Reset();
}

bool OpenStdio(const std::string& stderr_path, bool stdin_socket, Stdio* stdio, SpawnError* error) {
  *error = SpawnError();
  Stdio opened;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    error->text = absl::StrCat("pipe: ", std::strerror(errno));
    return false;
  }
  opened.out_read.Reset(pipe_fds[0]);
  opened.out_write.Reset(pipe_fds[1]);
  const std::string err_path = stderr_path.empty() ? "/dev/null" : stderr_path;
  // O_NOFOLLOW: a link planted at its name (the folder may be a worker's) is not followed.
  opened.err.Reset(::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!opened.err.valid()) {
    error->text = absl::StrCat("cannot open ", err_path, ": ", std::strerror(errno));
    return false;
  }
  int in_fds[2] = {-1, -1};
  const bool in_ok = stdin_socket ? ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_fds) == 0
                                  : (in_fds[0] = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;
  if (!in_ok) {
    error->text = absl::StrCat("its stdin: ", std::strerror(errno));
    return false;
  }
  opened.in.Reset(in_fds[0]);
  opened.in_peer.Reset(in_fds[1]);
  *stdio = std::move(opened);
  return true;
}

}  // namespace torchscan::process
