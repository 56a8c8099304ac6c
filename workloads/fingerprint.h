// Content fingerprints for the experiment record: TorchScript modules and tensors are
// identified by what they contain, not by their path. SHA-256, written "sha256:<64 hex
// digits>": for a file's bytes it is the digest `sha256sum FILE` prints. Pure; no LibTorch.
#pragma once

#include <initializer_list>
#include <string>

#include "absl/strings/string_view.h"

namespace torchscan::workloads {

// "sha256:<64 hex digits>" of `bytes`.
std::string Fingerprint(absl::string_view bytes);

// Fingerprint of the concatenation of `parts` (without copying them together).
std::string Fingerprint(std::initializer_list<absl::string_view> parts);

}  // namespace torchscan::workloads
