// The standard descriptors of a supervised program (run.h, and a program started ahead of its
// work, such as torchscand's spare worker): its stdout into a pipe read here, its stderr into
// a file, its stdin from /dev/null or from a socket whose other end is kept here (a socket, so
// that writing to a program that died fails with EPIPE instead of raising SIGPIPE). Every
// descriptor is close-on-exec; the set-up (pre_exec.h) dup2s the child's ones into place.
//
// Failure cases: OpenStdio returns false with `error` set (error.exec false; text "pipe:
// <error>", "cannot open <path>: <error>" or "its stdin: <error>") and nothing left open.
#pragma once

#include <string>

#include "process/fd.h"
#include "process/spawn.h"

namespace torchscan::process {

struct Stdio {
  Fd out_read;   // the pipe's end read here (an OutputPump's)
  Fd out_write;  // the child's stdout
  Fd err;        // the child's stderr: the file
  Fd in;         // the child's stdin: /dev/null or its end of the socket
  Fd in_peer;    // the socket's end kept here; invalid without one

  // Sets the child's three in `setup`.
  void Into(SetUp* setup) const;
  // Once the child runs: closes the child's ends here, so that end of file on the pipe comes
  // from the child's side.
  void CloseChildEnds();
};

// `stderr_path` is created or truncated (mode 0644); "" sends the stderr to /dev/null.
bool OpenStdio(const std::string& stderr_path, bool stdin_socket, Stdio* stdio, SpawnError* error);

}  // namespace torchscan::process
