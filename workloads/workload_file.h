// Files a workload reads (TorchScript modules, tensor files, check modules) come one of two
// ways: as bytes the client uploaded with the job (module_bytes, tensor_bytes, named by the
// client's source_name), or as a path the worker opens itself on the daemon's machine, as
// the daemon's worker user (path, tensor_file). Either way the record of a run names the
// file and its SHA-256 as `sha256sum` prints it. Pure: no LibTorch.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace torchscan::workloads {

// What a report says about one file.
struct FileRecord {
  std::string name;       // the client's name for uploaded bytes ("" when it gave none), or the path
  bool uploaded = false;  // sent with the job, rather than read on the daemon's machine
  int64_t bytes = 0;      // its size
  std::string sha256;     // "sha256:<64 hex digits>" of its bytes

  // "/home/ann/mlp.pt (uploaded, 1234 bytes)" or "/data/mlp.pt (read on the daemon's
  // machine, 1234 bytes)"; uploaded bytes without a name are "uploaded bytes (1234 bytes)".
  std::string Description() const;
};

// The record of `bytes`, named `name`. Cannot fail.
FileRecord RecordFile(absl::string_view bytes, std::string name, bool uploaded);

// The size of the regular file at `path`, which the worker is about to read; checked before
// reading, so that an input budget can refuse a large file unread. Errors name `field` (e.g.
// "model.torchscript.path") and the path:
//   InvalidArgument for anything but a regular file (a folder, /dev/zero, a FIFO);
//   NotFound when it cannot be reached or opened (missing, permission denied): the message
//     names the user this process runs as (ProcessUser) and the fix, uploading the file
//     with the job (torchscan-client does unless --daemon-path is given).
absl::StatusOr<int64_t> WorkerFileSize(const std::string& path, absl::string_view field);

// The whole file at `path`: WorkerFileSize's checks and errors, and the same NotFound for a
// failed read.
absl::StatusOr<std::string> ReadWorkerFile(const std::string& path, absl::string_view field);

// The effective user of this process as errors name it: "nobody (uid 65534)", or
// "uid 1234" when the user database has no name for it.
std::string ProcessUser();

}  // namespace torchscan::workloads
