#include "workloads/fingerprint.h"

#include "workloads/sha256.h"

namespace torchscan::workloads {

std::string Fingerprint(absl::string_view bytes) { return Fingerprint({bytes}); }

std::string Fingerprint(std::initializer_list<absl::string_view> parts) {
  Sha256 hash;
  for (absl::string_view part : parts) hash.Update(part);
  return "sha256:" + hash.HexDigest();
}

}  // namespace torchscan::workloads
