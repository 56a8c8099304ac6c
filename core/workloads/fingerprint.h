// Content fingerprints for the experiment record: TorchScript modules and tensor files are
// identified by what they contain, not by their path. Pure; no LibTorch.
#pragma once

#include <initializer_list>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

namespace torchscan::workloads {

// "fnv1a64:<16 hex digits>" of `bytes` (FNV-1a, 64 bit): detects changed files, not
// adversarial collisions.
std::string Fingerprint(absl::string_view bytes);

// Fingerprint of the concatenation of `parts` (without copying them together).
std::string Fingerprint(std::initializer_list<absl::string_view> parts);

// Fingerprint of a file's contents; kNotFound naming `field` and the path when it cannot be read;
// kInvalidArgument naming them for anything but a regular file (/dev/zero, a FIFO, a folder).
absl::StatusOr<std::string> FingerprintFile(const std::string& path, absl::string_view field);

}  // namespace torchscan::workloads
