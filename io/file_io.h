// Whole-file reading and atomic writing, for every file TorchScan reads or writes whole: job,
// configuration, token and PEM files, reports and job records, /proc and /sys facts, a child
// process's output. Plain POSIX calls; no protobuf.
//
// Failures come back as a status naming the path: NotFound for a missing file or folder,
// PermissionDenied when access is refused, Internal for any other system error (with the
// system's words), InvalidArgument for what ReadFile will not read (a folder, more than
// kMaxReadFileBytes). Nothing here throws.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace torchscan {

// Reads a whole file; NotFound / PermissionDenied / Internal naming the path; InvalidArgument
// naming the path for a folder or for more than kMaxReadFileBytes (endless streams such as
// /dev/zero are refused by size, not read forever). Files whose reported size is 0 but that
// hold text (/proc and /sys files), pipes and devices are read until their end.
inline constexpr int64_t kMaxReadFileBytes = int64_t{256} << 20;
absl::StatusOr<std::string> ReadFile(const std::string& path);

// Writes all of `bytes` to the open descriptor `fd` (retrying short writes and EINTR); `path`
// names it in the error (Internal / PermissionDenied ... "cannot write <path>: <errno text>").
absl::Status WriteAll(int fd, absl::string_view bytes, const std::string& path);

// Writes `text` to `path` atomically (temporary file beside it, fsync, rename): readers see
// the old file or the new one, never half of one; on error the old file is kept and the
// temporary one removed. A new file gets `mode` (less the umask). The temporary file is
// created anew (O_EXCL, O_NOFOLLOW): a link planted at its name is removed, never followed, so
// writing into a folder someone else can write to (a job's, while its worker runs) cannot be
// turned onto another file. NotFound / PermissionDenied / Internal naming the path.
absl::Status WriteFileAtomic(const std::string& path, const std::string& text, int mode = 0644);

// Keeps at most `max_bytes` of the file at `path`: when it is larger, its last `max_bytes`
// after one line "[<n> earlier bytes not kept]", written atomically (WriteFileAtomic, the same
// mode). A file that is missing or small enough is left as it is. A link is not followed.
absl::Status KeepTail(const std::string& path, int64_t max_bytes);

}  // namespace torchscan
