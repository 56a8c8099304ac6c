#include "process/pid_line.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "absl/strings/numbers.h"

namespace torchscan::process {

void WritePidLine(int fd, pid_t pid) {
  char digits[24];
  char* at = digits + sizeof(digits);
  *--at = '\n';
  unsigned long value = pid > 0 ? static_cast<unsigned long>(pid) : 0;
  do {
    *--at = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  (void)!::write(fd, at, static_cast<size_t>(digits + sizeof(digits) - at));
}

pid_t ReadPidLine(int fd, int timeout_ms) {
  std::string line;
  char c = 0;
  while (line.size() < 32) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return 0;
    const ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    if (c == '\n') break;
    line.push_back(c);
  }
  int pid = 0;
  return absl::SimpleAtoi(line, &pid) && pid > 0 ? static_cast<pid_t>(pid) : 0;
}

}  // namespace torchscan::process
