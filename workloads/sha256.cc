#include "workloads/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace torchscan::workloads {
namespace {

// libcrypto fails these only when it cannot allocate or is broken; neither is recoverable.
void Require(int ok) {
  if (ok != 1) std::abort();
}

}  // namespace

void Sha256::FreeContext::operator()(evp_md_ctx_st* context) const { EVP_MD_CTX_free(context); }

Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
  if (context_ == nullptr) std::abort();
  Require(EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr));
}

void Sha256::Update(absl::string_view bytes) { Require(EVP_DigestUpdate(context_.get(), bytes.data(), bytes.size())); }

std::string Sha256::HexDigest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  Require(EVP_DigestFinal_ex(context_.get(), digest, &length));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

std::string Sha256Hex(absl::string_view bytes) {
  Sha256 hash;
  hash.Update(bytes);
  return hash.HexDigest();
}

}  // namespace torchscan::workloads
