#include "io/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace torchscan {
namespace {

absl::Status ErrnoStatus(const std::string& what, const std::string& path) {
  const int e = errno;
  const std::string message = what + " " + path + ": " + std::strerror(e);
  if (e == ENOENT) return absl::NotFoundError(message);
  if (e == EACCES || e == EPERM) return absl::PermissionDeniedError(message);
  return absl::InternalError(message);
}

}  // namespace

absl::Status WriteAll(int fd, absl::string_view bytes, const std::string& path) {
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("cannot write", path);
    }
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomic(const std::string& path, const std::string& text, int mode) {
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  // A new file, never one planted at that name (a link would be followed): a leftover is
  // removed once (unlink removes a link itself) and the create tried again.
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(temporary.c_str(), kFlags, static_cast<mode_t>(mode));
  if (fd < 0 && errno == EEXIST && ::unlink(temporary.c_str()) == 0)
    fd = ::open(temporary.c_str(), kFlags, static_cast<mode_t>(mode));
  if (fd < 0) return ErrnoStatus("cannot create", temporary);
  if (absl::Status s = WriteAll(fd, text, temporary); !s.ok()) {
    ::close(fd);
    ::unlink(temporary.c_str());
    return s;
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    absl::Status s = ErrnoStatus("cannot flush", temporary);
    ::unlink(temporary.c_str());
    return s;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    absl::Status s = ErrnoStatus("cannot rename into", path);
    ::unlink(temporary.c_str());
    return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open", path);
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(path + " is a folder; give a file");
  }
  const auto too_large = [&] {
    return absl::InvalidArgumentError(path + " is larger than " + std::to_string(kMaxReadFileBytes) +
                                      " bytes; TorchScan does not read files that large");
  };
  if (S_ISREG(info.st_mode) && info.st_size > kMaxReadFileBytes) {
    ::close(fd);
    return too_large();
  }
  // Streams (pipes, devices such as /dev/zero) have no size: read up to the limit.
  std::string content;
  // A regular file's size is known: one allocation, so a large module is not copied at
  // each doubling (a 13 MB file took 0.15 s on this VM's page faults without it).
  if (S_ISREG(info.st_mode) && info.st_size > 0) content.reserve(static_cast<size_t>(info.st_size));
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status s = ErrnoStatus("cannot read", path);
      ::close(fd);
      return s;
    }
    if (static_cast<int64_t>(content.size()) + n > kMaxReadFileBytes) {
      ::close(fd);
      return too_large();
    }
    content.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return content;
}

absl::Status KeepTail(const std::string& path, int64_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? absl::OkStatus() : ErrnoStatus("cannot open", path);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= max_bytes) {
    ::close(fd);
    return absl::OkStatus();
  }
  std::string tail(static_cast<size_t>(max_bytes), '\0');
  const ssize_t n = ::pread(fd, tail.data(), tail.size(), st.st_size - max_bytes);
  ::close(fd);
  if (n < 0) return ErrnoStatus("cannot read", path);
  tail.resize(static_cast<size_t>(n));
  return WriteFileAtomic(path, "[" + std::to_string(st.st_size - n) + " earlier bytes not kept]\n" + tail,
                         static_cast<int>(st.st_mode & 07777));
}

}  // namespace torchscan
