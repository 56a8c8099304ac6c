// One owned file descriptor, closed when its owner goes. Move-only. No failure cases: a
// descriptor of -1 means none, and close errors are ignored (nothing could be done about one).
#pragma once

namespace torchscan::process {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { Reset(); }
  Fd(Fd&& other) noexcept : fd_(other.Release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int Release();            // gives the descriptor up without closing it; -1 when none
  void Reset(int fd = -1);  // closes the one held (if any) and holds `fd`

 private:
  int fd_ = -1;
};

}  // namespace torchscan::process
