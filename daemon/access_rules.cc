#include "daemon/access_rules.h"

#include "absl/strings/str_cat.h"

namespace torchscan::daemon {

absl::StatusOr<Caller> IdentifyCaller(const std::optional<Caller>& local, std::string_view authorization,
                                      const TokenTable* tokens) {
  if (authorization.empty()) {
    if (local) return *local;
    return absl::UnauthenticatedError(
        "authorization: this daemon needs a bearer token on TCP; pass --token-file FILE or set TORCHSCAN_TOKEN "
        "(ask the daemon's admin for a token)");
  }
  const std::string_view token = BearerToken(authorization);
  if (token.empty())
    return absl::UnauthenticatedError("authorization: expected \"Bearer TOKEN\"; pass the token with --token-file");
  const Caller* owner = tokens == nullptr ? nullptr : tokens->Find(token);
  if (owner == nullptr) {
    return absl::UnauthenticatedError(
        "authorization: the token is not in the daemon's token_file; check --token-file or ask the admin for a "
        "token");
  }
  if (!local) return *owner;
  if (owner->user != local->user) {
    return absl::PermissionDeniedError(absl::StrCat(
        "authorization: the token was issued to ", owner->user, ", but this unix-socket connection comes from ",
        local->user,
        "; on the socket torchscand knows you by your login name, and a token counts only if it "
        "names that login: run without --token-file and TORCHSCAN_TOKEN, or ask the daemon's admin for a token "
        "line for ",
        local->user));
  }
  Caller caller = *local;
  caller.admin = caller.admin || owner->admin;
  return caller;
}

absl::Status MayCancel(const std::string& id, const std::string& submitter, const Caller& caller,
                       const std::string& admin_group) {
  if (caller.user == submitter || caller.admin) return absl::OkStatus();
  const std::string head =
      absl::StrCat("id: job ", id, " was submitted by ", submitter, ", and ", caller.user, " may not cancel it: ");
  if (!caller.on_socket) {
    return absl::PermissionDeniedError(
        absl::StrCat(head, "only ", submitter,
                     " or an admin (a token_file line marked \"admin\") may; ask one of them, or ask "
                     "the daemon's admin to mark your token line admin"));
  }
  if (admin_group.empty()) {
    return absl::PermissionDeniedError(absl::StrCat(
        head, "on the unix socket only ", submitter,
        " or root may, since this daemon has no admin_group; ask one "
        "of them, or ask the daemon's admin to set admin_group (torchscand --admin-group GROUP) and add you to it"));
  }
  return absl::PermissionDeniedError(
      absl::StrCat(head, "on the unix socket only ", submitter, ", root or a member of group ", admin_group,
                   " (admin_group) may; ask one of them, or ask an admin to add you to ", admin_group, " (usermod -aG ",
                   admin_group, " ", caller.user, ", then log in again)"));
}

}  // namespace torchscan::daemon
