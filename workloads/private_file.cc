#include "workloads/private_file.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace torchscan::workloads {

absl::StatusOr<std::unique_ptr<PrivateFile>> PrivateFile::Write(const std::string& bytes, const std::string& suffix) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string folder = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  std::string path = absl::StrCat(folder, "/torchscan-XXXXXX", suffix);
  const int fd = ::mkstemps(path.data(), static_cast<int>(suffix.size()));
  if (fd < 0)
    return absl::FailedPreconditionError(
        absl::StrCat("could not make a private file in ", folder, ": ", std::strerror(errno)));
  auto file = std::unique_ptr<PrivateFile>(new PrivateFile(path));
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string error = n < 0 ? std::strerror(errno) : "nothing written";
      ::close(fd);
      return absl::FailedPreconditionError(
          absl::StrCat("could not write ", bytes.size(), " bytes to ", path, ": ", error));
    }
    written += static_cast<size_t>(n);
  }
  ::close(fd);
  return file;
}

PrivateFile::~PrivateFile() { ::unlink(path_.c_str()); }

}  // namespace torchscan::workloads
