// Bearer tokens of torchscand's users, loaded from the token_file of DaemonConfig.
//
// Format: one token per line, "USER TOKEN" or "USER TOKEN admin", fields separated by spaces
// or tabs; blank lines and lines starting with '#' are ignored. USER: letters, digits and
// "._-", at most 64. TOKEN: at least 16 printable non-space ASCII characters, unique in the
// file. A user may have several tokens (rotation). "admin" users may cancel anyone's jobs.
//
// Tokens are secrets: no error message, log line or Debug string ever contains one; errors
// name the file and the line number only. gRPC-free.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace torchscan::daemon {

inline constexpr size_t kMinTokenLength = 16;
inline constexpr size_t kMaxTokenFileBytes = 1 << 20;

// Who a caller is once authenticated.
struct Caller {
  std::string user;    // token owner, or "local" / "NAME@local" on a unix socket without token
  bool admin = false;  // may cancel any job
};

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

// The token of an "authorization" header value "Bearer TOKEN" (scheme case-insensitive), or
// empty when the value has another form.
std::string_view BearerToken(std::string_view header);

}  // namespace torchscan::daemon
