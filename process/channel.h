// The channel of a child that reads its work from a socket and writes its result there (an
// early child, spawn.h; a waiting RSS child, passes/peak_rss.h): a socket pair, one end kept
// by the reader (`here`), the other the child's stdin and stdout (`there`), and an anonymous
// file (memfd named `name`, shown in /proc/PID/fd) as its stderr. All close-on-exec.
//
// Failure cases: false with errno set when the socket pair or the file cannot be made (out of
// descriptors or memory); then nothing is left open and the three are left as they were.
#pragma once

#include <string>

#include "process/fd.h"

namespace torchscan::process {

bool OpenChannel(const std::string& name, Fd* here, Fd* there, Fd* err);

}  // namespace torchscan::process
