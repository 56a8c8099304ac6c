#include "daemon/token_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#include "io/file_io.h"

namespace torchscan::daemon {
namespace {

bool IsUserChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
}

bool IsTokenChar(char c) { return c > ' ' && c < 127; }

absl::Status LineError(const std::string& source, int line, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("token_file: ", source, " line ", line, ": ", what));
}

// Equal without an early exit on the first differing byte.
bool ConstantTimeEqual(std::string_view a, std::string_view b) {
  unsigned char differ = a.size() == b.size() ? 0 : 1;
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? a[i] : 0;
    const unsigned char y = i < b.size() ? b[i] : 0;
    differ |= x ^ y;
  }
  return differ == 0;
}

}  // namespace

absl::StatusOr<TokenTable> TokenTable::Load(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode))
    return absl::InvalidArgumentError(absl::StrCat("token_file: ", path, " is not a readable file"));
  if (info.st_mode & (S_IROTH | S_IWOTH | S_IWGRP)) {
    return absl::InvalidArgumentError(absl::StrCat("token_file: ", path,
                                                   " is readable or writable by others; chmod 0600 (or 0640 "
                                                   "for a group that may read it)"));
  }
  if (info.st_size > static_cast<off_t>(kMaxTokenFileBytes))
    return absl::InvalidArgumentError(absl::StrCat("token_file: ", path, " is over 1 MiB; is it the right file?"));
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return absl::InvalidArgumentError(absl::StrCat("token_file: ", text.status().message()));
  return Parse(*text, path);
}

absl::StatusOr<TokenTable> TokenTable::Parse(std::string_view text, const std::string& source) {
  TokenTable table;
  std::set<std::string> seen;
  int number = 0;
  for (absl::string_view line : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    std::vector<absl::string_view> fields = absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (fields.size() < 2 || fields.size() > 3)
      return LineError(source, number, "expected \"USER TOKEN\" or \"USER TOKEN admin\"");
    const absl::string_view user = fields[0], token = fields[1];
    if (user.size() > 64 || !std::all_of(user.begin(), user.end(), IsUserChar))
      return LineError(source, number, "the user name may have letters, digits and ._- (at most 64)");
    if (token.size() < kMinTokenLength || !std::all_of(token.begin(), token.end(), IsTokenChar)) {
      return LineError(source, number,
                       absl::StrCat("the token must be at least ", kMinTokenLength,
                                    " printable characters; make one with: openssl rand -hex 32"));
    }
    if (fields.size() == 3 && fields[2] != "admin")
      return LineError(source, number, "the third field may only be \"admin\"");
    if (!seen.insert(std::string(token)).second)
      return LineError(source, number, "this token is also given on an earlier line; tokens must be unique");
    table.entries_.push_back(Entry{std::string(token), Caller{std::string(user), fields.size() == 3}});
  }
  if (table.entries_.empty())
    return absl::InvalidArgumentError(absl::StrCat("token_file: ", source, " has no token; add \"USER TOKEN\" lines"));
  return table;
}

const Caller* TokenTable::Find(std::string_view token) const {
  const Caller* found = nullptr;
  for (const Entry& entry : entries_)
    if (ConstantTimeEqual(entry.token, token) && found == nullptr) found = &entry.caller;
  return found;
}

absl::StatusOr<std::unique_ptr<TokenFileWatcher>> TokenFileWatcher::Open(
    const std::string& path, std::chrono::steady_clock::duration check_interval) {
  std::unique_ptr<TokenFileWatcher> watcher(new TokenFileWatcher(path, check_interval));
  struct stat info {};
  ::stat(path.c_str(), &info);
  absl::StatusOr<TokenTable> table = TokenTable::Load(path);
  if (!table.ok()) return table.status();
  watcher->table_ = std::make_shared<const TokenTable>(*std::move(table));
  watcher->mtime_ = info.st_mtim;
  watcher->size_ = info.st_size;
  watcher->next_check_ = std::chrono::steady_clock::now() + check_interval;
  return watcher;
}

std::shared_ptr<const TokenTable> TokenFileWatcher::Current() {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (now < next_check_) return table_;
  next_check_ = now + check_interval_;
  struct stat info {};
  if (::stat(path_.c_str(), &info) != 0) return table_;
  if (info.st_mtim.tv_sec == mtime_.tv_sec && info.st_mtim.tv_nsec == mtime_.tv_nsec && info.st_size == size_)
    return table_;
  mtime_ = info.st_mtim;
  size_ = info.st_size;
  absl::StatusOr<TokenTable> table = TokenTable::Load(path_);
  if (!table.ok()) {
    spdlog::error("{}; keeping the {} tokens loaded before", std::string(table.status().message()), table_->size());
    return table_;
  }
  table_ = std::make_shared<const TokenTable>(*std::move(table));
  spdlog::info("reloaded {} tokens from {}", table_->size(), path_);
  return table_;
}

std::string_view BearerToken(std::string_view header) {
  absl::string_view value(header.data(), header.size());
  if (value.size() < 7 || !absl::EqualsIgnoreCase(value.substr(0, 7), "bearer ")) return {};
  value = absl::StripAsciiWhitespace(value.substr(7));
  return std::string_view(value.data(), value.size());
}

}  // namespace torchscan::daemon
