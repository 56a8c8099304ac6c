// What torchscand lets a caller do: who a call comes from (a bearer token, or on a unix socket
// the kernel's word, see local_caller.h) and whether it may cancel a job. gRPC-free; the
// service (service.h) calls these with what gRPC knows about the call. Messages name the fix
// and never contain a token.
//
// Rules: one person is one user name everywhere. Over TCP the token says who you are. On a
// unix socket your login name does, and a token counts there only if it was issued to that
// name (then its "admin" also counts); someone else's token is refused rather than silently
// ignored or trusted. Cancelling a job takes its submitter or an admin: on a unix socket root
// or a member of admin_group, or a token marked "admin".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/caller.h"
#include "daemon/token_file.h"

namespace torchscan::daemon {

// Who a call comes from. `local`: the caller of a unix-socket connection (LocalCaller);
// nullopt over TCP. `authorization`: the call's "authorization" metadata ("" when absent).
// `tokens` may be null (no token_file).
//   TCP: the owner of a token in `tokens` (and its admin flag). Unauthenticated without a
//        token, for a header that is not "Bearer TOKEN", or for an unknown token.
//   Unix socket without a token: `local`.
//   Unix socket with a token: Unauthenticated as above for a malformed or unknown token;
//        PermissionDenied naming both users when the token's owner is not the login name;
//        else `local`, an admin when the token or the login says so.
absl::StatusOr<Caller> IdentifyCaller(const std::optional<Caller>& local, std::string_view authorization,
                                      const TokenTable* tokens);

// OK when `caller` may cancel job `id` that `submitter` submitted: it is the submitter or an
// admin. Otherwise PermissionDenied naming the job, its submitter, the caller and who may:
// on a unix socket root or a member of `admin_group` (the fix: join that group; without an
// admin_group: ask the daemon's admin to set one), over TCP a token marked "admin".
absl::Status MayCancel(const std::string& id, const std::string& submitter, const Caller& caller,
                       const std::string& admin_group);

}  // namespace torchscan::daemon
