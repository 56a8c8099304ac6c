#include "workloads/private_file.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "io/file_io.h"

namespace torchscan::workloads {

absl::StatusOr<std::unique_ptr<PrivateFile>> PrivateFile::Write(absl::string_view bytes, const std::string& suffix) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string folder = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  std::string path = absl::StrCat(folder, "/torchscan-XXXXXX", suffix);
  const int fd = ::mkstemps(path.data(), static_cast<int>(suffix.size()));
  if (fd < 0)
    return absl::FailedPreconditionError(
        absl::StrCat("could not make a private file in ", folder, ": ", std::strerror(errno)));
  auto file = std::unique_ptr<PrivateFile>(new PrivateFile(path));
  if (absl::Status s = WriteAll(fd, bytes, path); !s.ok()) {
    ::close(fd);
    return absl::FailedPreconditionError(s.message());
  }
  ::close(fd);
  return file;
}

PrivateFile::~PrivateFile() { ::unlink(path_.c_str()); }

}  // namespace torchscan::workloads
