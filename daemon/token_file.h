// Bearer tokens of torchscand's users, loaded from the token_file of DaemonConfig.
//
// Format: one token per line, "USER TOKEN" or "USER TOKEN admin", fields separated by spaces
// or tabs; blank lines and lines starting with '#' are ignored. USER: letters, digits and
// "._-", at most 64. TOKEN: at least 16 printable non-space ASCII characters, unique in the
// file. A user may have several tokens (rotation). "admin" users may cancel anyone's jobs. USER
// is the person's login name: on a unix socket a token counts only for that login (access_rules.h).
//
// Tokens are secrets: no error message, log line or Debug string ever contains one; errors
// name the file and the line number only. gRPC-free.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/caller.h"

namespace torchscan::daemon {

inline constexpr size_t kMinTokenLength = 16;
inline constexpr size_t kMaxTokenFileBytes = 1 << 20;

class TokenTable {
 public:
  TokenTable() = default;

  // Reads and checks `path`. InvalidArgument naming "token_file" for an unreadable, too large
  // (> 1 MiB), group/world-writable or world-readable file, a malformed line (by number), a
  // short or duplicate token, or a file with no token.
  static absl::StatusOr<TokenTable> Load(const std::string& path);
  // The same checks on text already read; `source` names it in errors.
  static absl::StatusOr<TokenTable> Parse(std::string_view text, const std::string& source);

  // The owner of `token`, or nullptr. Compares against every entry in constant time per
  // entry, so the time taken does not reveal how much of a token matched.
  const Caller* Find(std::string_view token) const;

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string token;
    Caller caller;
  };
  std::vector<Entry> entries_;
};

// A token file that follows edits without a restart (a rotated Kubernetes Secret, an admin
// adding a line): Current() looks at the file's modification time and size at most once per
// `check_interval` and reloads it when they changed. A file that no longer loads keeps the
// previous tokens (the error is logged once per change, naming the file, never a token).
// Thread-safe.
class TokenFileWatcher {
 public:
  // Loads `path` now; its errors are TokenTable::Load's.
  static absl::StatusOr<std::unique_ptr<TokenFileWatcher>> Open(
      const std::string& path, std::chrono::steady_clock::duration check_interval = std::chrono::seconds(1));

  std::shared_ptr<const TokenTable> Current();

 private:
  TokenFileWatcher(std::string path, std::chrono::steady_clock::duration check_interval)
      : path_(std::move(path)), check_interval_(check_interval) {}

  const std::string path_;
  const std::chrono::steady_clock::duration check_interval_;
  std::mutex mu_;
  std::shared_ptr<const TokenTable> table_;
  std::chrono::steady_clock::time_point next_check_;
  struct timespec mtime_ {};
  off_t size_ = -1;
};

// The token of an "authorization" header value "Bearer TOKEN" (scheme case-insensitive), or
// empty when the value has another form.
std::string_view BearerToken(std::string_view header);

}  // namespace torchscan::daemon
