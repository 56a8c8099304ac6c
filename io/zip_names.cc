#include "io/zip_names.h"

#include <cstdint>

#include "absl/strings/str_cat.h"

namespace torchscan {
namespace {

constexpr uint32_t kEndOfDirectory = 0x06054b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr uint32_t kZip64End = 0x06064b50;
constexpr uint32_t kDirectoryEntry = 0x02014b50;
constexpr size_t kEndOfDirectorySize = 22;

// Little-endian reads; `at + width` must lie within `bytes` (checked by the callers).
uint64_t Read(std::string_view bytes, size_t at, int width) {
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

bool Fits(std::string_view bytes, uint64_t at, uint64_t width) {
  return at <= bytes.size() && width <= bytes.size() - at;
}

absl::Status NotZip(const std::string& why) { return absl::InvalidArgumentError("not a zip archive: " + why); }

}  // namespace

absl::StatusOr<std::vector<std::string>> ZipEntryNames(std::string_view bytes) {
  if (bytes.size() < kEndOfDirectorySize) return NotZip("shorter than a zip archive's end record");
  // The end record is last, followed by a comment of at most 65535 bytes.
  size_t end = std::string_view::npos;
  const size_t lowest = bytes.size() > kEndOfDirectorySize + 65535 ? bytes.size() - kEndOfDirectorySize - 65535 : 0;
  for (size_t at = bytes.size() - kEndOfDirectorySize + 1; at-- > lowest;) {
    if (Read(bytes, at, 4) == kEndOfDirectory) {
      end = at;
      break;
    }
  }
  if (end == std::string_view::npos) return NotZip("no end-of-central-directory record");
  uint64_t entries = Read(bytes, end + 10, 2);
  uint64_t offset = Read(bytes, end + 16, 4);
  if ((entries == 0xffff || offset == 0xffffffff) && end >= 20 && Read(bytes, end - 20, 4) == kZip64Locator) {
    const uint64_t zip64_end = Read(bytes, end - 20 + 8, 8);
    if (!Fits(bytes, zip64_end, 56) || Read(bytes, zip64_end, 4) != kZip64End)
      return NotZip("its zip64 end record lies outside the file");
    entries = Read(bytes, zip64_end + 32, 8);
    offset = Read(bytes, zip64_end + 48, 8);
  }
  std::vector<std::string> names;
  for (uint64_t i = 0; i < entries; ++i) {
    if (!Fits(bytes, offset, 46) || Read(bytes, offset, 4) != kDirectoryEntry)
      return NotZip(absl::StrCat("central directory entry ", i, " of ", entries, " lies outside the file"));
    const uint64_t name_size = Read(bytes, offset + 28, 2);
    const uint64_t extra_size = Read(bytes, offset + 30, 2);
    const uint64_t comment_size = Read(bytes, offset + 32, 2);
    if (!Fits(bytes, offset + 46, name_size + extra_size + comment_size))
      return NotZip(absl::StrCat("central directory entry ", i, " runs past the end of the file"));
    names.emplace_back(bytes.substr(offset + 46, name_size));
    offset += 46 + name_size + extra_size + comment_size;
  }
  return names;
}

}  // namespace torchscan
