// A child's stdout, read here without blocking from the read end of a pipe and handed on
// line by line (without the newline). Lines over 64 KiB are handed on in 64 KiB pieces; at
// end of file a last line without a newline is handed on too. Not thread-safe: the thread
// that supervises the child owns it.
//
// Failure cases: a read error other than EAGAIN/EINTR counts as end of file (eof() true);
// nothing throws (an exception thrown by `on_line` passes through).
#pragma once

#include <functional>
#include <string>

namespace torchscan::process {

class OutputPump {
 public:
  // Takes `fd` (made non-blocking here; closed by Finish, or by the destructor).
  OutputPump(int fd, std::function<void(const std::string&)> on_line);
  ~OutputPump();
  OutputPump(const OutputPump&) = delete;
  OutputPump& operator=(const OutputPump&) = delete;

  int fd() const { return fd_; }
  bool eof() const { return eof_; }
  bool closed() const { return closed_; }
  // Lines from now on go to `on_line` (e.g. a spare worker's, once it has its job).
  void set_on_line(std::function<void(const std::string&)> on_line) { on_line_ = std::move(on_line); }

  // Reads what is there and hands on the complete lines (everything, at end of file).
  void Read();
  // Once the child is gone: reads what it left in the pipe, hands it on when `deliver` (a
  // child that exited by itself), drops it otherwise, and closes the pipe.
  void Finish(bool deliver);

 private:
  const int fd_;
  std::function<void(const std::string&)> on_line_;
  std::string buffer_;
  bool eof_ = false;
  bool closed_ = false;
};

}  // namespace torchscan::process
