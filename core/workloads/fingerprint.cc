#include "core/workloads/fingerprint.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace torchscan::workloads {
namespace {

constexpr uint64_t kOffsetBasis = 14695981039346656037ULL;
constexpr uint64_t kPrime = 1099511628211ULL;

uint64_t Update(uint64_t hash, absl::string_view bytes) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= kPrime;
  }
  return hash;
}

std::string Format(uint64_t hash) { return absl::StrFormat("fnv1a64:%016x", hash); }

}  // namespace

std::string Fingerprint(absl::string_view bytes) { return Format(Update(kOffsetBasis, bytes)); }

std::string Fingerprint(std::initializer_list<absl::string_view> parts) {
  uint64_t hash = kOffsetBasis;
  for (absl::string_view part : parts) hash = Update(hash, part);
  return Format(hash);
}

absl::StatusOr<std::string> FingerprintFile(const std::string& path, absl::string_view field) {
  // Devices such as /dev/zero never end, FIFOs block and folders hold no bytes: regular files only.
  struct stat info;
  if (::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": '", path,
                                                   "' is not a regular file (a folder, device or pipe); give a file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(field, ": cannot read '", path, "': ", std::strerror(errno),
                                            "; give a path readable by the process that builds the workload"));
  }
  uint64_t hash = kOffsetBasis;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
    hash = Update(hash, absl::string_view(buffer, static_cast<size_t>(in.gcount())));
  }
  return Format(hash);
}

}  // namespace torchscan::workloads
