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

std::string_view JobActionName(JobAction action) {
  switch (action) {
    case JobAction::kShow: return "show";
    case JobAction::kWatch: return "watch";
    case JobAction::kFetch: return "fetch the result of";
    case JobAction::kCancel: return "cancel";
  }
  return "use";
}

bool SeesAllOf(const std::string& submitter, const Caller& caller) { return caller.user == submitter || caller.admin; }

absl::Status MayAccess(JobAction action, const std::string& id, const std::string& submitter, const Caller& caller,
                       const std::string& admin_group) {
  if (SeesAllOf(submitter, caller)) return absl::OkStatus();
  const std::string head = absl::StrCat("id: ", caller.user, " may not ", std::string(JobActionName(action)), " job ",
                                        id, ", which another user submitted: ");
  if (!caller.on_socket) {
    return absl::PermissionDeniedError(
        absl::StrCat(head,
                     "only a job's submitter or an admin (a token_file line marked \"admin\") may; ask the daemon's "
                     "admin, or to mark your token line admin"));
  }
  if (admin_group.empty()) {
    return absl::PermissionDeniedError(absl::StrCat(
        head,
        "on the unix socket only a job's submitter or root may, since this daemon has no admin_group; ask the "
        "daemon's admin, or to set admin_group (torchscand --admin-group GROUP) and add you to it"));
  }
  return absl::PermissionDeniedError(
      absl::StrCat(head, "on the unix socket only a job's submitter, root or a member of group ", admin_group,
                   " (admin_group) may; ask an admin to add you to ", admin_group, " (usermod -aG ", admin_group, " ",
                   caller.user, ", then log in again)"));
}

v1::Job ShownTo(v1::Job job, const Caller& caller) {
  if (!caller.admin) job.clear_worker_pid();
  return job;
}

v1::Job ListedFor(const v1::Job& job, const Caller& caller) {
  if (SeesAllOf(job.submitter(), caller)) return ShownTo(job, caller);
  v1::Job listed;
  listed.set_id(job.id());
  listed.set_state(job.state());
  listed.set_submitter(job.submitter());  // who holds the queue: a shared queue must be seen
  listed.set_submitted_at(job.submitted_at());
  listed.set_started_at(job.started_at());
  listed.set_finished_at(job.finished_at());
  listed.set_queue_position(job.queue_position());
  listed.set_slurm_job_id(job.slurm_job_id());
  listed.set_node(job.node());
  switch (job.spec().kind_case()) {
    case v1::JobSpec::kMeasure: listed.mutable_spec()->mutable_measure(); break;
    case v1::JobSpec::kCompare: listed.mutable_spec()->mutable_compare(); break;
    case v1::JobSpec::kCalibrate: listed.mutable_spec()->mutable_calibrate(); break;
    default: break;
  }
  return listed;
}

v1::DaemonInfo InfoFor(v1::DaemonInfo info, const Caller& caller) {
  if (caller.admin) return info;
  v1::DaemonConfig& config = *info.mutable_config();
  config.clear_listen();
  config.clear_socket_mode();
  config.clear_socket_group();
  config.clear_worker_path();
  config.clear_rss_child_path();
  config.clear_tls();
  config.clear_token_file();
  config.clear_config_file();
  config.clear_worker_user();
  config.clear_admin_group();
  info.clear_spare_worker_pid();
  for (v1::DeviceLane& lane : *info.mutable_devices()) lane.clear_spare_worker_pid();
  return info;
}

}  // namespace torchscan::daemon
