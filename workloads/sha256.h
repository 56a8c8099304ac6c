// SHA-256 (FIPS 180-4), written out as `sha256sum` prints it: 64 lowercase hex digits. Reports
// name module and tensor files by it, so that a user can match a report to a file with
// standard tools. Pure, no dependencies; an identifier of contents, not a tool for secrets
// (no constant-time guarantees). Takes any bytes, including empty ones; cannot fail.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace torchscan::workloads {

// Incremental hashing: Update with the parts in order, then HexDigest once.
class Sha256 {
 public:
  Sha256();
  void Update(absl::string_view bytes);
  // The digest of everything given to Update; the object must not be updated afterwards.
  std::string HexDigest();

 private:
  void Compress(const unsigned char* block);

  uint32_t state_[8];
  unsigned char buffer_[64];
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes given so far
};

// The 64 hex digits of SHA-256(bytes), e.g. Sha256Hex("abc") = "ba7816bf...15ad".
std::string Sha256Hex(absl::string_view bytes);

}  // namespace torchscan::workloads
