// The pid line: a child started before its parent's exec (spawn.h, EarlyChild) tells the
// program that adopts it who it is by writing its own pid in decimal and a newline on its
// socket before its own exec, so that the line comes before anything its program writes there.
// "0\n" in its place says that the child could not be forked.
//
// WritePidLine is async-signal-safe (for a forked or vforked child); a failed write is
// ignored: the reader then finds no line. ReadPidLine fails soft: 0 when the line is missing
// (nothing within `timeout_ms`, end of file), longer than 31 characters, not a positive
// decimal number, or "0".
#pragma once

#include <sys/types.h>

namespace torchscan::process {

void WritePidLine(int fd, pid_t pid);

// Reads one line from socket or pipe `fd`, one byte at a time (nothing after the newline is
// consumed), waiting at most `timeout_ms` for each byte.
pid_t ReadPidLine(int fd, int timeout_ms);

}  // namespace torchscan::process
