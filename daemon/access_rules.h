// What torchscand lets a caller do: who a call comes from (a bearer token, or on a unix socket
// the kernel's word, see local_caller.h), whether it may act on a job, and what of other users'
// jobs it sees. gRPC-free; the service (service.h) and the daemon (daemon.h) call these with
// what gRPC knows about the call. Messages name the fix and never contain a token.
//
// Rules: one person is one user name everywhere. Over TCP the token says who you are. On a
// unix socket your login name does, and a token counts there only if it was issued to that
// name (then its "admin" also counts); someone else's token is refused rather than silently
// ignored or trusted. Showing, watching, fetching the result of and cancelling a job take its
// submitter or an admin: on a unix socket root or a member of admin_group, or a token marked
// "admin". A refusal names the rule, not the submitter. Lists show everyone's jobs (a shared
// queue must be seen) but, to others than their submitter and admins, only who submitted them,
// their ids, states, times and queue positions (ListedFor); workers' pids only to admins; a label's history holds the
// caller's own jobs only (an admin's: everyone's). `info` keeps the daemon's paths and names
// and the spare worker's pid for admins (InfoFor).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/caller.h"
#include "daemon/token_file.h"
#include "proto/service.pb.h"

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

// What a caller asks to do with one job.
enum class JobAction { kShow, kWatch, kFetch, kCancel };
// "show", "watch", "fetch the result of" or "cancel".
std::string_view JobActionName(JobAction action);

// OK when `caller` may do `action` to job `id`, which `submitter` submitted: it is the
// submitter or an admin. Otherwise PermissionDenied naming the job, the action, the rule and
// who may (not the submitter): on a unix socket root or a member of `admin_group` (the fix:
// join that group; without an admin_group: ask the daemon's admin to set one), over TCP a
// token marked "admin".
absl::Status MayAccess(JobAction action, const std::string& id, const std::string& submitter, const Caller& caller,
                       const std::string& admin_group);

// Whether `caller` sees everything of a job `submitter` submitted: it is the submitter or an admin.
bool SeesAllOf(const std::string& submitter, const Caller& caller);

// `job` as `caller` may see it, who SeesAllOf it: whole for an admin; without its worker's pid
// for its submitter (a pid is a way into another process: issue 41).
v1::Job ShownTo(v1::Job job, const Caller& caller);

// `job` as a list shows it to `caller`: ShownTo when SeesAllOf, else only its id, state,
// submitter, times, queue position, Slurm job id and node, and which kind of job it is (an
// empty measure, compare or calibrate): no label, metadata, files, phase, error, worker,
// timeline or results.
v1::Job ListedFor(const v1::Job& job, const Caller& caller);

// The daemon's `info` as `caller` sees it: whole for an admin; for others without what only
// its admin needs (listen addresses, socket mode and group, worker and RSS child paths, TLS
// files, token file, configuration file, worker user, admin group) and without the spare worker's pid. What a
// user needs stays: devices, threads, CPU set, limits, sandbox, shared paths, Slurm, state_dir.
v1::DaemonInfo InfoFor(v1::DaemonInfo info, const Caller& caller);

}  // namespace torchscan::daemon
