#!/usr/bin/env bash
# TorchScan's CI job, one script for both platforms: the GitHub Actions workflow
# (deploy/ci/github/torchscan.yml) and the GitLab CI job (deploy/ci/gitlab/torchscan.gitlab-ci.yml)
# only set its variables and run it; tests/deploy/check_ci.py runs it the same way against a real
# torchscand and a local stand-in for each platform's REST API. On a pull / merge request it:
#   1. takes torchscan-client from $TORCHSCAN_CLIENT, or builds it from the TorchScan checkout this
#      script sits in (scripts/setup.sh, then bazel build //client:torchscan-client);
#   2. writes the daemon's CA and the token from the CI's secrets into mode-0600 files in a private
#      temporary folder (removed at exit; the token is never printed nor put on a command line);
#   3. runs `torchscan-client compare --job $TORCHSCAN_JOB` on $TORCHSCAN_DAEMON over TLS, with
#      --label $TORCHSCAN_NAME (the benchmark's name, which `history` follows), --revision (the
#      commit: GITHUB_SHA / CI_COMMIT_SHA, or $TORCHSCAN_REVISION) and --fail-on $TORCHSCAN_FAIL_ON;
#      the results go to ./torchscan-out/ (comparison.json, comparison.html, comment.md: the
#      artifacts);
#   4. renders the comparison with `render --format markdown` and puts it, with a line naming the
#      revision and the gate's outcome, in a comment on the pull / merge request through the
#      platform's REST API (a job that failed before comparing posts a short note instead); the
#      comment's first line is the hidden marker `<!-- torchscan-ci: NAME -->`, and with
#      TORCHSCAN_COMMENT=update (the default) the last comment of the request that starts with this
#      benchmark's marker is updated instead of adding one per push; when none is found, or the
#      listing or the update fails (e.g. 403/404: someone else's comment, or deleted meanwhile), a
#      new comment is posted and stderr says why;
#   5. exits with the client's status, after posting.
# Exit status: the client's (0 passed; 1 the output check failed; 3 the job failed; 4 no daemon
# reached; 5 refused, e.g. a wrong token; 6 the verdict matched --fail-on: client/exit_codes.h);
# 2 when a variable is missing or wrong (the message names it and where to set it), or when
# the client cannot be built (not the build's own status: 1 would read as a failed check);
# 7 when the comparison passed but the comment could be neither updated nor posted.
# Needs bash, curl and python3 (JSON for the platform's API).
set -euo pipefail

# The variables it requires: NAME KIND PLATFORM. KIND says where each comes from: secret (a GitHub
# secret passed in the step's env / a masked GitLab CI/CD variable), setting (the workflow's env /
# the job's variables), platform (set by the CI itself). tests/deploy/check_ci.py reads this list
# to check the workflow files against it.
REQUIRED=(
  "TORCHSCAN_DAEMON setting any"
  "TORCHSCAN_JOB setting any"
  "TORCHSCAN_NAME setting any"
  "TORCHSCAN_TLS_CA secret any"
  "TORCHSCAN_TOKEN secret any"
  "GITHUB_TOKEN secret github"
  "GITHUB_API_URL platform github"
  "GITHUB_REPOSITORY platform github"
  "GITHUB_SHA platform github"
  "GITHUB_EVENT_PATH platform github"
  "TORCHSCAN_GITLAB_TOKEN secret gitlab"
  "CI_API_V4_URL platform gitlab"
  "CI_PROJECT_ID platform gitlab"
  "CI_MERGE_REQUEST_IID platform gitlab"
  "CI_COMMIT_SHA platform gitlab"
)
# Optional: TORCHSCAN_FAIL_ON (slower | not-faster | any-change | none; default slower),
# TORCHSCAN_GATE_ON (label | claim; default label), TORCHSCAN_DETAILS (1: render --details),
# TORCHSCAN_REVISION (instead of the platform's commit), TORCHSCAN_CLIENT (a prebuilt client),
# TORCHSCAN_COMMENT (update: one comment per benchmark, updated on each push, the default; new:
# a new comment on each push).

OUT=torchscan-out

fail() {  # fail STATUS MESSAGE...
  local status=$1
  shift
  echo "torchscan-ci: $*" >&2
  exit "$status"
}

platform=
if [[ ${GITHUB_ACTIONS:-} == true ]]; then
  platform=github
  workflow=deploy/ci/github/torchscan.yml
elif [[ ${GITLAB_CI:-} == true ]]; then
  platform=gitlab
  workflow=deploy/ci/gitlab/torchscan.gitlab-ci.yml
else
  fail 2 "run me from GitHub Actions (GITHUB_ACTIONS=true) or GitLab CI (GITLAB_CI=true): see deploy/README.md, \"CI\""
fi

# Where the user sets NAME, for the message about a missing one.
where_to_set() {  # where_to_set NAME KIND
  local name=$1 kind=$2
  case "$platform/$kind" in
    github/secret)
      if [[ $name == GITHUB_TOKEN ]]; then
        echo "pass GITHUB_TOKEN: \${{ secrets.GITHUB_TOKEN }} in the script step's env: ($workflow); the job needs permissions: pull-requests: write"
      else
        echo "add the repository secret $name (Settings > Secrets and variables > Actions) and pass $name: \${{ secrets.$name }} in the script step's env: ($workflow); pull requests from forks get no secrets"
      fi ;;
    gitlab/secret)
      if [[ $name == TORCHSCAN_GITLAB_TOKEN ]]; then
        echo "add a project access token (role Reporter, scope api) as the masked variable $name under Settings > CI/CD > Variables"
      else
        echo "add $name under Settings > CI/CD > Variables (masked; a protected variable reaches only protected branches)"
      fi ;;
    github/setting) echo "set $name in the workflow's env: ($workflow)" ;;
    gitlab/setting) echo "set $name in the job's variables: ($workflow)" ;;
    github/platform) echo "GitHub Actions sets $name; run this from a workflow triggered on: pull_request" ;;
    gitlab/platform) echo "GitLab sets $name in merge request pipelines; keep the job's rules: on merge_request_event" ;;
  esac
}

for entry in "${REQUIRED[@]}"; do
  read -r name kind scope <<<"$entry"
  if [[ ($scope == any || $scope == "$platform") && -z ${!name:-} ]]; then
    fail 2 "$name is not set: $(where_to_set "$name" "$kind")"
  fi
done

for tool in curl python3; do
  command -v "$tool" >/dev/null || fail 2 "$tool is not installed: add it to the job's image (apt-get install $tool)"
done

fail_on=${TORCHSCAN_FAIL_ON:-slower}
gate_on=${TORCHSCAN_GATE_ON:-label}
case "$fail_on" in
  slower | not-faster | any-change) gate=(--fail-on "$fail_on" --gate-on "$gate_on") ;;
  none) gate=() ;;
  *) fail 2 "TORCHSCAN_FAIL_ON=$fail_on: use slower, not-faster, any-change or none ($(where_to_set TORCHSCAN_FAIL_ON setting))" ;;
esac
[[ $gate_on == label || $gate_on == claim ]] ||
  fail 2 "TORCHSCAN_GATE_ON=$gate_on: use label or claim ($(where_to_set TORCHSCAN_GATE_ON setting))"
comment_mode=${TORCHSCAN_COMMENT:-update}
[[ $comment_mode == update || $comment_mode == new ]] ||
  fail 2 "TORCHSCAN_COMMENT=$comment_mode: use update (one comment per benchmark, updated on each push) or new (a comment per push) ($(where_to_set TORCHSCAN_COMMENT setting))"
# The first line of this benchmark's comment, hidden when rendered. The name is free text (the
# client's --label), so what could end the HTML comment or the line is percent-encoded: '%' and
# < > ! and control characters, then the second '-' of each "--" (so a name like "a-->b" can
# neither close the marker nor make another benchmark's).
marker=$(python3 -c '
import re, sys
name = re.sub(r"[%<>!\x00-\x1f\x7f]", lambda m: "%%%02X" % ord(m.group()), sys.argv[1]).replace("--", "-%2D")
print("<!-- torchscan-ci: " + name + " -->")' "$TORCHSCAN_NAME") ||
  fail 2 "TORCHSCAN_NAME: python3 could not make the comment's marker of it (its message is above)"
[[ -f $TORCHSCAN_JOB ]] ||
  fail 2 "TORCHSCAN_JOB=$TORCHSCAN_JOB is not a file (a compare job: deploy/README.md, \"CI\"); $(where_to_set TORCHSCAN_JOB setting)"
[[ -e $OUT ]] && fail 2 "./$OUT already exists: the job writes its results there; remove it"

# The pull / merge request, the commit measured, the comment's address and a link to this job.
if [[ $platform == github ]]; then
  pr=$(python3 -c 'import json, sys; print((json.load(open(sys.argv[1])).get("pull_request") or {}).get("number", ""))' \
    "$GITHUB_EVENT_PATH") || fail 2 "GITHUB_EVENT_PATH=$GITHUB_EVENT_PATH is not a readable event file"
  [[ -n $pr ]] || fail 2 "GITHUB_EVENT_PATH holds no pull_request: $(where_to_set GITHUB_EVENT_PATH platform)"
  revision=${TORCHSCAN_REVISION:-$GITHUB_SHA}
  comment_url="$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/issues/$pr/comments"
  comment_list_query=
  comment_item_url="$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/issues/comments"  # + /ID
  update_method=PATCH
  request=pull
  job_url=${GITHUB_RUN_ID:+${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID}
else
  revision=${TORCHSCAN_REVISION:-$CI_COMMIT_SHA}
  comment_url="$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes"
  comment_list_query="&sort=asc"  # GitLab lists the newest first unless asked
  comment_item_url=$comment_url  # + /ID
  update_method=PUT
  request=merge
  job_url=${CI_JOB_URL:-}
fi

# The secrets, into files only this user can read; then out of the environment of what follows.
private=$(umask 077 && mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/torchscan-ci.XXXXXX")
trap 'rm -rf "$private"' EXIT
saved_umask=$(umask)
umask 077
printf '%s\n' "$TORCHSCAN_TOKEN" >"$private/token"
if [[ $TORCHSCAN_TLS_CA == *"-----BEGIN"* ]]; then
  printf '%s\n' "$TORCHSCAN_TLS_CA" >"$private/ca.pem"
elif [[ -f $TORCHSCAN_TLS_CA ]]; then  # a GitLab variable of type File holds the file's path
  cp "$TORCHSCAN_TLS_CA" "$private/ca.pem"
else
  fail 2 "TORCHSCAN_TLS_CA holds neither a PEM certificate (-----BEGIN CERTIFICATE-----) nor the path of one: $(where_to_set TORCHSCAN_TLS_CA secret)"
fi
if [[ $platform == github ]]; then
  printf 'Authorization: Bearer %s\nAccept: application/vnd.github+json\nX-GitHub-Api-Version: 2022-11-28\n' \
    "$GITHUB_TOKEN" >"$private/api-headers"
else
  printf 'PRIVATE-TOKEN: %s\n' "$TORCHSCAN_GITLAB_TOKEN" >"$private/api-headers"
fi
unset TORCHSCAN_TOKEN GITHUB_TOKEN TORCHSCAN_GITLAB_TOKEN
umask "$saved_umask"

if [[ -n ${TORCHSCAN_CLIENT:-} ]]; then
  [[ -x $TORCHSCAN_CLIENT ]] || fail 2 "TORCHSCAN_CLIENT=$TORCHSCAN_CLIENT is not an executable file"
  client=$TORCHSCAN_CLIENT
else
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  echo "torchscan-ci: building torchscan-client in $root"
  (cd "$root" && scripts/setup.sh && bazel build //client:torchscan-client) ||
    fail 2 "could not build torchscan-client in $root (scripts/setup.sh, then bazel build" \
      "//client:torchscan-client; its output is above); or set TORCHSCAN_CLIENT to a prebuilt client"
  client=$root/bazel-bin/client/torchscan-client
fi

echo "torchscan-ci: comparing $TORCHSCAN_JOB as \"$TORCHSCAN_NAME\" at $revision on $TORCHSCAN_DAEMON (--fail-on $fail_on)"
set +e
"$client" --daemon "$TORCHSCAN_DAEMON" --tls-ca "$private/ca.pem" --token-file "$private/token" \
  compare --job "$TORCHSCAN_JOB" --label "$TORCHSCAN_NAME" --revision "$revision" "${gate[@]}" --output "$OUT"
status=$?
set -e

case "$status" in
  0) outcome="passed" ;;
  1) outcome="**the output check failed** (exit 1)" ;;
  6) outcome="**failed**: the verdict matched --fail-on $fail_on (exit 6)" ;;
  *) outcome="exit $status" ;;
esac
[[ $fail_on == none && $status == 0 ]] && outcome="none (TORCHSCAN_FAIL_ON=none)"
footer="Benchmark \`$TORCHSCAN_NAME\` at \`$revision\` · gate: $outcome${job_url:+ · [job log]($job_url)}"
mkdir -p "$OUT"
printf '%s\n' "$marker" >"$OUT/comment.md"  # hidden when rendered; finds this comment on the next push
if [[ -f $OUT/comparison.json ]]; then
  details=()
  [[ ${TORCHSCAN_DETAILS:-0} == 1 ]] && details=(--details)
  if "$client" render "$OUT/comparison.json" --format markdown "${details[@]}" -o "$private/verdict.md"; then
    { cat "$private/verdict.md"; printf '\n%s\n' "$footer"; } >>"$OUT/comment.md"
  else  # the comparison's exit status still decides the job; say why the verdict is missing
    printf '### TorchScan: the verdict could not be rendered\n\n%s failed on %s (see the job log).\n\n%s\n' \
      "\`torchscan-client render\`" "\`$OUT/comparison.json\`" "$footer" >>"$OUT/comment.md"
  fi
else
  printf '### TorchScan: no comparison\n\n%s stopped before comparing (exit %s: see the job log).\n\n%s\n' \
    "\`torchscan-client compare\`" "$status" "$footer" >>"$OUT/comment.md"
fi
[[ -n ${GITHUB_STEP_SUMMARY:-} ]] && cat "$OUT/comment.md" >>"$GITHUB_STEP_SUMMARY"

python3 -c 'import json, sys; json.dump({"body": open(sys.argv[1], encoding="utf-8").read()}, sys.stdout)' \
  "$OUT/comment.md" >"$private/body.json"

# api METHOD URL [BODY]: one request to the platform's API with the token's headers; the answer in
# $private/response, its HTTP status in $code; fails unless the status is 2xx.
api() {
  local send=()
  [[ -n ${3:-} ]] && send=(--header 'Content-Type: application/json' --data-binary @"$3")
  code=
  code=$(curl --silent --show-error --output "$private/response" --write-out '%{http_code}' --request "$1" \
    --header @"$private/api-headers" "${send[@]}" "$2") && [[ $code == 2?? ]]
}

# One page of the listing (argv: the answer, the marker): "COUNT ID", ID the last comment on the
# page whose first line is the marker, or "-"; fails when the answer is not a list of comments.
page_py='
import json, sys
items = json.load(open(sys.argv[1], encoding="utf-8"))
if not isinstance(items, list):
    sys.exit("not a list of comments")
ids = [str(c["id"]) for c in items if isinstance(c, dict) and "id" in c
       and str(c.get("body") or "").split("\n", 1)[0].rstrip("\r") == sys.argv[2]]
print(len(items), ids[-1] if ids else "-")
'

# find_comment: sets comment_id to the ID of the request's last comment whose first line is
# $marker (empty: none); fails when a page of the listing cannot be read. Pages of 100, oldest
# first, until a short page (at most 50 pages: 5000 comments).
find_comment() {
  local page line count id
  comment_id=
  for ((page = 1; page <= 50; page++)); do
    api GET "$comment_url?per_page=100&page=$page$comment_list_query" || return 1
    line=$(python3 -c "$page_py" "$private/response" "$marker") || return 1
    read -r count id <<<"$line"
    [[ $id != - ]] && comment_id=$id
    ((count < 100)) && break
  done
  return 0
}

comment_id=
if [[ $comment_mode == update ]]; then
  if ! find_comment; then
    echo "torchscan-ci: could not list the $request request's comments ($comment_url: HTTP ${code:-none}):" \
      "posting a new comment" >&2
    comment_id=
  fi
fi
if [[ -n $comment_id ]]; then
  if api "$update_method" "$comment_item_url/$comment_id" "$private/body.json"; then
    echo "torchscan-ci: updated the verdict on the $request request (comment $comment_id)"
  else
    echo "torchscan-ci: could not update comment $comment_id ($update_method $comment_item_url/$comment_id:" \
      "HTTP ${code:-none}: $(head -c 200 "$private/response" 2>/dev/null)): posting a new comment" >&2
    comment_id=
  fi
fi
if [[ -z $comment_id ]]; then
  if api POST "$comment_url" "$private/body.json"; then
    echo "torchscan-ci: posted the verdict on the $request request ($comment_url)"
  else
    echo "torchscan-ci: could not post the comment to $comment_url: HTTP ${code:-none}: $(head -c 400 "$private/response" 2>/dev/null)" >&2
    [[ $platform == github ]] && echo "torchscan-ci: the job needs permissions: pull-requests: write" >&2
    [[ $platform == gitlab ]] && echo "torchscan-ci: TORCHSCAN_GITLAB_TOKEN needs the api scope and at least the Reporter role" >&2
    [[ $status == 0 ]] && status=7
  fi
fi
exit "$status"
