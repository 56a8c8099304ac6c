#include "workloads/workload_file.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "workloads/fingerprint.h"

namespace torchscan::workloads {
namespace {

absl::Status Unreadable(const std::string& path, absl::string_view field, int error) {
  return absl::NotFoundError(absl::StrCat(
      field, ": the daemon's worker, running as user ", ProcessUser(), ", cannot read '", path,
      "' on the daemon's machine: ", std::strerror(error),
      "; to send the file with the job instead, leave out --daemon-path (torchscan-client uploads the files it is "
      "given by default), or give a path this user can read there"));
}

// An open descriptor of the regular file at `path`, opened as this process's effective user
// (O_NONBLOCK: a FIFO is refused, not waited on).
absl::StatusOr<int> OpenRegularFile(const std::string& path, absl::string_view field) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Unreadable(path, field, errno);
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    // Devices such as /dev/zero never end, FIFOs block and folders hold no bytes.
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": '", path, "' is not a regular file (a folder, device or pipe); give a file"));
  }
  return fd;
}

}  // namespace

std::string FileRecord::Description() const {
  const std::string size = absl::StrCat(bytes, " bytes");
  if (!uploaded) return absl::StrCat(name, " (read on the daemon's machine, ", size, ")");
  if (name.empty()) return absl::StrCat("uploaded bytes (", size, ")");
  return absl::StrCat(name, " (uploaded, ", size, ")");
}

FileRecord RecordFile(absl::string_view bytes, std::string name, bool uploaded) {
  return FileRecord{std::move(name), uploaded, static_cast<int64_t>(bytes.size()), Fingerprint(bytes)};
}

std::string ProcessUser() {
  const uid_t uid = ::geteuid();
  std::vector<char> buffer(16384);
  passwd entry;
  passwd* found = nullptr;
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr)
    return absl::StrCat(found->pw_name, " (uid ", uid, ")");
  return absl::StrCat("uid ", uid);
}

absl::StatusOr<int64_t> WorkerFileSize(const std::string& path, absl::string_view field) {
  absl::StatusOr<int> fd = OpenRegularFile(path, field);
  if (!fd.ok()) return fd.status();
  struct stat info;
  const int64_t size = ::fstat(*fd, &info) == 0 ? static_cast<int64_t>(info.st_size) : 0;
  ::close(*fd);
  return size;
}

absl::StatusOr<std::string> ReadWorkerFile(const std::string& path, absl::string_view field) {
  absl::StatusOr<int> fd = OpenRegularFile(path, field);
  if (!fd.ok()) return fd.status();
  std::string bytes;
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(*fd, buffer, sizeof(buffer));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(*fd);
      return Unreadable(path, field, error);
    }
    bytes.append(buffer, static_cast<size_t>(n));
  }
  ::close(*fd);
  return bytes;
}

}  // namespace torchscan::workloads
