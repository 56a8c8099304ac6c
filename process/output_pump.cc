#include "process/output_pump.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace torchscan::process {
namespace {

constexpr size_t kMaxLine = 64 * 1024;

// Reads what is available; false at end of file (or an error other than EAGAIN/EINTR).
bool ReadAvailable(int fd, std::string* buffer) {
  char chunk[4096];
  while (true) {
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n > 0) {
      buffer->append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && errno == EAGAIN;
  }
}

void EmitLines(std::string* buffer, bool flush_partial, const std::function<void(const std::string&)>& on_line) {
  size_t start = 0;
  while (true) {
    const size_t newline = buffer->find('\n', start);
    if (newline == std::string::npos) break;
    if (on_line) on_line(buffer->substr(start, newline - start));
    start = newline + 1;
  }
  buffer->erase(0, start);
  while (buffer->size() > kMaxLine || (flush_partial && !buffer->empty())) {
    const size_t n = std::min(buffer->size(), kMaxLine);
    if (on_line) on_line(buffer->substr(0, n));
    buffer->erase(0, n);
  }
}

}  // namespace

OutputPump::OutputPump(int fd, std::function<void(const std::string&)> on_line)
    : fd_(fd), on_line_(std::move(on_line)) {
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
}

OutputPump::~OutputPump() {
  if (!closed_) ::close(fd_);
}

void OutputPump::Read() {
  eof_ = !ReadAvailable(fd_, &buffer_);
  EmitLines(&buffer_, eof_, on_line_);
}

void OutputPump::Finish(bool deliver) {
  if (closed_) return;
  if (!eof_) ReadAvailable(fd_, &buffer_);
  EmitLines(&buffer_, true, deliver ? on_line_ : nullptr);
  ::close(fd_);
  closed_ = true;
}

}  // namespace torchscan::process
