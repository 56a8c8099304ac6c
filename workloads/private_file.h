// A file of this process's own in $TMPDIR (else /tmp; a sandboxed job's /tmp is its own),
// mode 0600, removed when the object goes: for LibTorch APIs that take a path, not bytes (an
// AOTInductor package, a shared library to dlopen). No LibTorch.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace torchscan::workloads {

class PrivateFile {
 public:
  // Writes `bytes` to a new file named torchscan-XXXXXX<suffix>. FailedPrecondition naming the
  // folder and errno when it cannot be made or written (a full or read-only /tmp).
  static absl::StatusOr<std::unique_ptr<PrivateFile>> Write(absl::string_view bytes, const std::string& suffix);
  ~PrivateFile();
  PrivateFile(const PrivateFile&) = delete;
  PrivateFile& operator=(const PrivateFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  explicit PrivateFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace torchscan::workloads
