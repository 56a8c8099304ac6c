#include "client/client_context.h"

#include <sys/stat.h>

#include <cstdlib>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "client/personal_daemon.h"
#include "io/file_io.h"

namespace torchscan {
namespace {

// The non-empty lines of `text` that do not start with '#', trimmed.
std::vector<std::string> MeaningfulLines(const std::string& text) {
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty() && line[0] != '#') lines.emplace_back(line);
  }
  return lines;
}

absl::StatusOr<std::string> ReadToken(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) == 0 && (info.st_mode & S_IROTH))
    return absl::InvalidArgumentError("--token-file: " + path + " is readable by everyone; chmod 0600 " + path);
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return absl::InvalidArgumentError("--token-file: " + std::string(text.status().message()));
  return TokenFromText(*text, "--token-file " + path);
}

}  // namespace

absl::StatusOr<std::string> TokenFromText(const std::string& text, const std::string& source) {
  const std::vector<std::string> lines = MeaningfulLines(text);
  constexpr const char* kShapes = "write the bare token, or the `USER TOKEN` line your daemon's admin gave you";
  if (lines.empty()) return absl::InvalidArgumentError(source + " holds no token; " + kShapes);
  if (lines.size() > 1)
    return absl::InvalidArgumentError(source + " holds " + std::to_string(lines.size()) +
                                      " token lines; keep only yours (" + kShapes + ")");
  const std::vector<std::string> words = absl::StrSplit(lines.front(), absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (words.size() == 1) return words[0];
  if (words.size() == 2 || (words.size() == 3 && words[2] == "admin")) return words[1];
  return absl::InvalidArgumentError(source + ": its line has " + std::to_string(words.size()) + " words; " + kShapes);
}

absl::Status ResolveClientContext(ClientContext* ctx) {
  if (!ctx->token_file.empty()) {
    absl::StatusOr<std::string> token = ReadToken(ctx->token_file);
    if (!token.ok()) return token.status();
    ctx->credentials.token = *token;
  } else if (const char* token = std::getenv("TORCHSCAN_TOKEN"); token != nullptr && *token != '\0') {
    absl::StatusOr<std::string> parsed = TokenFromText(token, "TORCHSCAN_TOKEN");
    if (!parsed.ok()) return parsed.status();
    ctx->credentials.token = *parsed;
  }
  if (!ctx->daemons.empty()) ctx->daemons_source = "--daemon";
  if (!ctx->daemons_file.empty()) {
    absl::StatusOr<std::string> text = ReadFile(ctx->daemons_file);
    if (!text.ok()) return absl::InvalidArgumentError("--daemons-file: " + std::string(text.status().message()));
    std::vector<std::string> addresses = MeaningfulLines(*text);
    if (addresses.empty())
      return absl::InvalidArgumentError("--daemons-file: " + ctx->daemons_file +
                                        " lists no address; write one unix:PATH or host:port per line");
    ctx->daemons.insert(ctx->daemons.end(), addresses.begin(), addresses.end());
    if (ctx->daemons_source.empty()) ctx->daemons_source = "--daemons-file";
  }
  if (const char* env = std::getenv("TORCHSCAN_DAEMON"); ctx->daemons.empty() && env != nullptr) {
    const std::string address(absl::StripAsciiWhitespace(env));
    if (!address.empty()) {
      ctx->daemons.push_back(address);
      ctx->daemons_source = "TORCHSCAN_DAEMON";
    }
  }
  if (ctx->daemons.empty())
    if (std::optional<std::string> personal = RunningPersonalDaemon()) {
      ctx->daemons.push_back(*personal);
      ctx->daemons_source = "the personal daemon (torchscan-client daemon start)";
    }
  return absl::OkStatus();
}

bool IsUtf8Locale(const char* lc_all, const char* lc_ctype, const char* lang) {
  for (const char* value : {lc_all, lc_ctype, lang}) {
    if (value == nullptr || *value == '\0') continue;
    const std::string lower = absl::AsciiStrToLower(value);
    return absl::StrContains(lower, "utf-8") || absl::StrContains(lower, "utf8");
  }
  return false;
}

absl::StatusOr<Connection> ConnectTo(const ClientContext& ctx, const std::string& address) {
  Connection c;
  absl::StatusOr<std::unique_ptr<DaemonClient>> client =
      DaemonClient::Connect(address, ctx.credentials, 5, ctx.daemons_source);
  if (!client.ok()) return client.status();
  c.client = *std::move(client);
  return c;
}

absl::StatusOr<Connection> Connect(const ClientContext& ctx) {
  if (ctx.daemons.size() > 1)
    return absl::InvalidArgumentError("--daemon: this command talks to one daemon, but " +
                                      std::to_string(ctx.daemons.size()) +
                                      " were given; only measure, compare and example run on several");
  if (!ctx.daemons.empty()) return ConnectTo(ctx, ctx.daemons.front());
  Connection c;
  EmbeddedDaemonOptions options;
  options.daemon_path = ctx.torchscand;
  absl::StatusOr<std::unique_ptr<EmbeddedDaemon>> embedded = EmbeddedDaemon::Start(options);
  if (!embedded.ok()) return embedded.status();
  c.embedded = *std::move(embedded);
  absl::StatusOr<std::unique_ptr<DaemonClient>> client = DaemonClient::Connect(c.embedded->address());
  if (!client.ok()) return client.status();
  c.client = *std::move(client);
  return c;
}

absl::StatusOr<Connection> ConnectResident(const ClientContext& ctx, const std::string& command) {
  if (ctx.daemons.empty())
    return absl::InvalidArgumentError(
        command +
        ": no resident daemon was given: jobs live on a resident torchscand; pass --daemon ADDR (e.g. "
        "--daemon unix:/run/torchscand/torchscand.sock, or HOST:PORT with --tls-ca) or set "
        "TORCHSCAN_DAEMON=ADDR, or start your own with `torchscan-client daemon start`. Without one, measure "
        "and compare run on a private daemon that stops when they finish, so its jobs cannot be listed or "
        "fetched later");
  return Connect(ctx);
}

}  // namespace torchscan
