"""deploy/ci/ for real: torchscan-ci.sh run the way each CI runs it, and the workflow files that
run it checked as YAML against what the script reads.

Usage: check_ci.py [--xml FILE]   (run by bazel test, from the runfiles root)

The job runs with the environment GitHub Actions (a pull_request event) or GitLab CI (a merge
request pipeline) gives it, and nothing else from this process's environment: the platform's API
URL points at a local HTTP server (Api) that keeps the request's comments, records every request
and serves the listing page by page, POST, and GitHub's PATCH / GitLab's PUT of one comment (or
answers 403, for the cases of a comment the platform refuses), and TORCHSCAN_DAEMON at a real
torchscand over TCP with TLS and a token (remote_daemon.py, as remote_client_test
starts it). TORCHSCAN_CLIENT is a wrapper that records the client's command lines, the modes of
the files they name and the secrets in its environment, then runs the real client. The jobs are
tiny (the built-in linear model, --min-run-time 0.05). No timing verdict is asserted: the exit
status must be what --fail-on gives for the label comparison.json got (7 instead of 0 when the
comment was refused). A wrong token stops the client before comparing: its status (5) is the
job's, and the short "no comparison" note is posted instead of a verdict. The comment opens with
the benchmark's hidden marker line: the next run on the same request updates that comment (the
stores are kept between the cases that show it), other comments stay as they were, a refused
update falls back to a new comment, and TORCHSCAN_COMMENT=new posts one per run.
"""

import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.parse

from checklib import Checks, load_yaml_documents, program, read_text, xml_flag
from places import TOKEN
from remote_daemon import RemoteDaemon

SCRIPT = os.path.abspath("deploy/ci/torchscan-ci.sh")
GITHUB_WORKFLOW = "deploy/ci/github/torchscan.yml"
GITLAB_JOB = "deploy/ci/gitlab/torchscan.gitlab-ci.yml"
OUT = "torchscan-out"
GITHUB_API_TOKEN = "ghs_thisIsTheFakeGithubToken0123"
GITLAB_API_TOKEN = "glpat-thisIsTheFakeGitlabToken01"
SECRETS = (TOKEN, GITHUB_API_TOKEN, GITLAB_API_TOKEN)
# The labels each --fail-on fails (client/verdict_gate.h; README "CI gating").
GATE_FAILS = {"slower": {"slower"}, "not-faster": {"slower", "within_variability", "unavailable"},
              "any-change": {"faster", "slower"}, "none": set()}
MAX_COMMENT_LINES = 40
# The hidden first line of the benchmark's comment, which the next push's job finds and updates.
MARKER = "<!-- torchscan-ci: ci-linear -->"
BREAKING_NAME = "x --> <b>y</b> -- 100%!"

# The compare jobs (JobSpec JSON, as a user's repository would hold them).
OPTIONS = {"min_run_time_s": 0.05, "skip_diagnostics": True}
AA_JOB = {"compare": {"baseline": {"model": {"builtin": "linear"}}, "candidate": {"model": {"builtin": "linear"}},
                      "check": {"declarative": {"rtol": 1e-4, "atol": 1e-5}}, "rounds": 4},
          "options": OPTIONS}
BAD_CHECK_JOB = {"compare": {"baseline": {"model": {"builtin": "linear"}},
                             "candidate": {"model": {"builtin": "linear"}, "dtype": "bfloat16"},
                             "check": {"declarative": {"rtol": 0, "atol": 0}}, "rounds": 4},
                 "options": OPTIONS}

# A client that records what it was given, then runs the real one.
WRAPPER = """#!/usr/bin/env bash
{{
  echo "argv:$*"
  prev=
  for a in "$@"; do
    case "$prev" in --tls-ca|--token-file) echo "mode $prev $(stat -c %a "$a")" ;; esac
    prev=$a
  done
  env | grep -E '^(TORCHSCAN_TOKEN|GITHUB_TOKEN|TORCHSCAN_GITLAB_TOKEN)=' | sed 's/=.*/ in the environment/'
}} >>"{log}"
exec "{client}" "$@"
"""


class Api(http.server.BaseHTTPRequestHandler):
    """Each platform's REST API for comments. Records every request as (method, path, headers, body)
    in the server's `requests` (headers: any case) and keeps the comments in its `comments`
    ({listing path: [{"id", "body"}, ...]}, oldest first). GET on a listing path answers one page
    (page, per_page; GitLab's /api/v4 listings newest first unless sort=asc); POST on one adds a
    comment (201); PATCH /repos/OWNER/NAME/issues/comments/ID (GitHub) and PUT LISTING/ID (GitLab)
    replace that comment's body (404 when it is not there, or for the other platform's method).
    A `status` that is not 2xx answers every request (a platform refusing the token: 403);
    `update_status`, when set, answers PATCH and PUT (someone else's comment)."""

    def answer(self, status, payload):
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode("utf-8")
        server = self.server
        server.requests.append((self.command, self.path, self.headers, body))
        status = server.status
        if self.command in ("PATCH", "PUT") and server.update_status:
            status = server.update_status
        if status // 100 != 2:
            return self.answer(status, {"message": f"{status} refused"})
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        if self.command == "GET" and url.path in server.comments:
            items = server.comments[url.path]
            if url.path.startswith("/api/v4/") and query.get("sort") != ["asc"]:
                items = items[::-1]
            per_page = int(query.get("per_page", ["20"])[0])
            page = int(query.get("page", ["1"])[0])
            return self.answer(200, items[(page - 1) * per_page:page * per_page])
        if self.command == "POST":
            server.next_id += 1
            comment = {"id": server.next_id, "body": json.loads(body)["body"]}
            server.comments.setdefault(url.path, []).append(comment)
            return self.answer(201, comment)
        listing, _, comment_id = url.path.rpartition("/")
        if self.command == "PATCH" and listing.endswith("/issues/comments"):
            issues = listing[:-len("comments")]
            candidates = [c for path, cs in server.comments.items() if path.startswith(issues) for c in cs]
        elif self.command == "PUT" and listing.startswith("/api/v4/"):
            candidates = server.comments.get(listing, [])
        else:
            candidates = []
        for comment in candidates:
            if str(comment["id"]) == comment_id:
                comment["body"] = json.loads(body)["body"]
                return self.answer(200, comment)
        return self.answer(404, {"message": "404 Not Found"})

    do_GET = do_POST = do_PATCH = do_PUT = handle_any

    def log_message(self, *args):
        pass


def start_api():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Api)
    server.requests = []
    server.comments = {}
    server.next_id = 0
    server.status = 201
    server.update_status = None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def writes(requests):
    """[(method, path)] of the requests that wrote a comment (all but the listing's GETs)."""
    return [(method, path) for method, path, _, _ in requests if method != "GET"]


def marked(comments, marker=MARKER):
    """The comments whose first line is `marker`."""
    return [c for c in comments if c["body"].split("\n", 1)[0] == marker]


class Job:
    """One run of torchscan-ci.sh in a fresh folder (the CI's checkout) holding the job file."""

    def __init__(self, scratch, name, env, job_spec):
        self.folder = os.path.join(scratch, name)
        os.makedirs(os.path.join(self.folder, "bench"))
        with open(os.path.join(self.folder, "bench/compare-job.json"), "w") as f:
            json.dump(job_spec, f)
        self.client_log = os.path.join(self.folder, "client.log")
        wrapper = os.path.join(scratch, name + "-client.sh")
        with open(wrapper, "w") as f:
            f.write(WRAPPER.format(log=self.client_log, client=program("torchscan-client")))
        os.chmod(wrapper, 0o755)
        self.env = dict(env, TORCHSCAN_CLIENT=wrapper, TORCHSCAN_JOB="bench/compare-job.json")
        self.run = None

    def start(self, script=SCRIPT):
        self.run = subprocess.run([script], cwd=self.folder, env=self.env, capture_output=True, text=True, timeout=240)
        return self

    def output(self):
        return self.run.stdout + self.run.stderr

    def client_lines(self):
        return read_text(self.client_log).splitlines() if os.path.exists(self.client_log) else []

    def comparison(self):
        with open(os.path.join(self.folder, OUT, "comparison.json")) as f:
            return json.load(f)


def base_env(daemon):
    home = tempfile.mkdtemp(prefix="ci-home.")
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TMPDIR": home,
            "TORCHSCAN_DAEMON": daemon.tcp, "TORCHSCAN_TLS_CA": read_text(daemon.cert), "TORCHSCAN_TOKEN": TOKEN,
            "TORCHSCAN_NAME": "ci-linear"}


def github_env(daemon, api, scratch):
    """What a GitHub Actions step of a pull_request workflow sees (plus the workflow's env)."""
    event = os.path.join(scratch, "event.json")
    with open(event, "w") as f:
        json.dump({"action": "synchronize", "number": 7,
                   "pull_request": {"number": 7, "head": {"sha": "1" * 40}, "base": {"ref": "main"}}}, f)
    return dict(base_env(daemon), GITHUB_ACTIONS="true", CI="true", GITHUB_EVENT_NAME="pull_request",
                GITHUB_EVENT_PATH=event, GITHUB_API_URL=api, GITHUB_SERVER_URL="https://github.example",
                GITHUB_REPOSITORY="acme/models", GITHUB_SHA="a" * 40, GITHUB_REF="refs/pull/7/merge",
                GITHUB_RUN_ID="4242", RUNNER_TEMP=scratch, GITHUB_TOKEN=GITHUB_API_TOKEN)


def gitlab_env(daemon, api):
    """What a GitLab CI job of a merge request pipeline sees (plus the project's variables)."""
    return dict(base_env(daemon), GITLAB_CI="true", CI="true", CI_PIPELINE_SOURCE="merge_request_event",
                CI_API_V4_URL=api + "/api/v4", CI_PROJECT_ID="42", CI_MERGE_REQUEST_IID="3",
                CI_COMMIT_SHA="b" * 40, CI_JOB_URL="https://gitlab.example/acme/models/-/jobs/99",
                TORCHSCAN_GITLAB_TOKEN=GITLAB_API_TOKEN)


def expected_status(comparison, fail_on):
    if comparison["output_check"]["status"] == "failed":
        return 1
    return 6 if comparison.get("latency_change", "unavailable") in GATE_FAILS[fail_on] else 0


def check_comment(requests, expected, header, value):
    """None when the requests that wrote a comment were exactly `expected` ([(method, path)]), the
    last with header: value and a body that is the marker line, then Markdown (no HTML) of at most
    MAX_COMMENT_LINES lines: the verdict (render --format markdown)."""
    if writes(requests) != expected:
        return f"expected the comment written by {expected}, got {writes(requests)}"
    _, _, headers, body = [r for r in requests if r[0] != "GET"][-1]
    if headers.get(header) != value:
        return f"header {header} is {headers.get(header)!r}, expected {value!r}"
    comment = json.loads(body)["body"]
    marker, _, visible = comment.partition("\n")
    if marker != MARKER:
        return f"the comment's first line is {marker!r}, not the hidden marker {MARKER!r}"
    lines = visible.rstrip("\n").split("\n")
    if len(lines) > MAX_COMMENT_LINES:
        return f"the comment has {len(lines)} lines (at most {MAX_COMMENT_LINES}):\n{comment}"
    if re.search(r"</?[a-zA-Z][^>]*>", comment) or "<!--" in visible:
        return f"the comment holds HTML (beyond its marker line):\n{comment}"
    if not (lines[0].startswith("### TorchScan") and "ci-linear" in lines[0]) or \
            not all(w in comment for w in ("**Output check:**", "**Latency change:**")):
        return f"the comment is not the verdict (a heading naming the benchmark, the check, the label):\n{comment}"
    return None


def check_job(job, fail_on, requests, expected, header, value, revision, api_status=201):
    """The checks every job that compared must pass; None or the first failure. `expected`: the
    requests that write the comment, [(method, path)] (check_comment). `api_status`: what the
    platform's API answered every request (not 2xx: a gate that passed becomes exit 7, any other
    status is kept, and the job says why the comment is missing)."""
    output = job.output()
    for secret in SECRETS:
        if secret in output:
            return "a token appears in the job's output"
    if not all(os.path.getsize(os.path.join(job.folder, OUT, f)) > 0 for f in ("comparison.json", "comparison.html")):
        return f"{OUT}/ lacks comparison.json or comparison.html"
    comparison = job.comparison()
    want = expected_status(comparison, fail_on)
    if api_status // 100 != 2:
        want = 7 if want == 0 else want
        if f"could not post the comment to {job.env.get('GITHUB_API_URL') or job.env['CI_API_V4_URL']}" not in \
                job.run.stderr or f"HTTP {api_status}" not in job.run.stderr:
            return f"the job does not say the comment was refused (HTTP {api_status}): {output[-1500:]}"
    if job.run.returncode != want:
        return (f"exit {job.run.returncode}, but --fail-on {fail_on} on label {comparison.get('latency_change')} "
                f"(check {comparison['output_check']['status']}) gives {want}: {output[-1500:]}")
    if comparison.get("label") != "ci-linear":
        return f"comparison.json's label is {comparison.get('label')!r}, not TORCHSCAN_NAME"
    lines = job.client_lines()
    compare = [l for l in lines if l.startswith("argv:") and " compare " in l]
    gate = f"--fail-on {fail_on}" if fail_on != "none" else "--fail-on"  # none: no gate flag at all
    if len(compare) != 1 or f"--revision {revision}" not in compare[0] or (gate in compare[0]) != (fail_on != "none"):
        return f"the client's compare command lacks --revision {revision} or --fail-on {fail_on}: {compare}"
    modes = [l for l in lines if l.startswith("mode ")]
    if not modes or any(not l.endswith(" 600") for l in modes):
        return f"the CA and token files are not mode 0600: {modes}"
    if any("in the environment" in l for l in lines):
        return f"the client was given a secret in its environment: {lines}"
    leftovers = [n for n in os.listdir(job.env["TMPDIR"]) if n.startswith("torchscan-ci.")]
    if job.env.get("RUNNER_TEMP"):
        leftovers += [n for n in os.listdir(job.env["RUNNER_TEMP"]) if n.startswith("torchscan-ci.")]
    if leftovers:
        return f"the secrets' folder was left behind: {leftovers}"
    return check_comment(requests, expected, header, value)


def check_no_comparison(job, requests, path, status):
    """A client stopped before comparing (a wrong token: exit 5): its status is the job's, and the
    short note saying so is posted instead of the verdict."""
    output = job.output()
    if job.run.returncode != status:
        return f"exit {job.run.returncode}, expected the client's {status}: {output[-1500:]}"
    if any(secret in output for secret in SECRETS):
        return "a token appears in the job's output"
    if os.path.exists(os.path.join(job.folder, OUT, "comparison.json")):
        return f"{OUT}/comparison.json exists although the client was refused"
    if writes(requests) != [("POST", path)]:
        return f"expected one POST to {path}, got {writes(requests)}"
    note = json.loads(requests[-1][3])["body"]
    if not note.startswith(MARKER + "\n### TorchScan: no comparison") or f"(exit {status}:" not in note or \
            "ci-linear" not in note:
        return f"the note does not say the client stopped before comparing (exit {status}):\n{note}"
    return None


def check_updated(job, api, listing, untouched):
    """After a job whose check_job expected an update: exactly one comment at `listing` starts with
    the marker and holds this job's comment.md, the comments in `untouched` are unchanged, the
    listing was walked to its second page (GitLab: oldest first), and the job says it updated."""
    comments = api.comments.get(listing, [])
    ours = marked(comments)
    body = read_text(os.path.join(job.folder, OUT, "comment.md"))
    if len(ours) != 1 or ours[0]["body"] != body:
        return f"expected one comment with the marker holding this job's comment.md, got {ours}"
    if any(c not in comments for c in untouched):
        return f"a comment that is not this benchmark's was changed: {comments[:len(untouched)]}"
    pages = [urllib.parse.parse_qs(urllib.parse.urlsplit(p).query) for m, p, _, _ in api.requests if m == "GET"]
    if [q.get("page") for q in pages] != [["1"], ["2"]] or any(q.get("per_page") != ["100"] for q in pages) or \
            (listing.startswith("/api/v4/") and any(q.get("sort") != ["asc"] for q in pages)):
        return f"the listing was not walked page by page (per_page=100, page 1 and 2, GitLab sort=asc): {pages}"
    if "updated the verdict on the" not in job.run.stdout or f"(comment {ours[0]['id']})" not in job.run.stdout:
        return f"the job does not say it updated comment {ours[0]['id']}: {job.output()[-800:]}"
    return None


def check_update_refused(job, api, listing, item, auth):
    """The update of the comment found was refused (403): the job says so, posts a new comment and
    exits with the gate's status (none: 0), not 7."""
    failure = check_job(job, "none", api.requests, [("PATCH", item), ("POST", listing)], *auth, "a" * 40)
    if failure:
        return failure
    if "could not update comment" not in job.run.stderr or "posting a new comment" not in job.run.stderr:
        return f"the job does not say the update failed and it posted instead: {job.output()[-800:]}"
    if len(marked(api.comments[listing])) != 2:
        return f"expected the refused comment and a new one, got {api.comments[listing]}"
    return None


def check_marker_escaped(job, requests):
    """A job named BREAKING_NAME that stopped before comparing: the note it posted opens with one
    line that is a single HTML comment (nothing in it can end it early: no "--", "<" or ">" inside)
    whose percent-decoded text is the name, then the note's visible heading."""
    notes = [body for method, _, _, body in requests if method == "POST"]
    if job.run.returncode != 5 or len(notes) != 1:
        return f"exit {job.run.returncode} with {len(notes)} notes posted (expected 5 and one): {job.output()[-800:]}"
    first, _, rest = json.loads(notes[0])["body"].partition("\n")
    prefix, suffix = "<!-- torchscan-ci: ", " -->"
    inside = first[len(prefix):-len(suffix)]
    if not (first.startswith(prefix) and first.endswith(suffix)) or any(t in inside for t in ("--", "<", ">")) or \
            urllib.parse.unquote(inside) != BREAKING_NAME:
        return f"the marker line {first!r} does not hold {BREAKING_NAME!r} escaped"
    if not rest.startswith("### TorchScan: no comparison"):
        return f"the note's first visible line is not its heading:\n{rest}"
    return None


def check_missing(job, requests, name, where):
    """A variable missing or wrong: exit 2 naming it and where to set it, before the client runs
    and before any request to the platform."""
    if job.run.returncode != 2 or name not in job.run.stderr or where not in job.run.stderr:
        return f"exit {job.run.returncode} (expected 2, naming {name} and {where}): {job.output()[-800:]}"
    if requests or job.client_lines():
        return "the job went on without the variable (it ran the client or posted)"
    return None


def check_build_fails(scratch, env, requests):
    """Without TORCHSCAN_CLIENT the script builds the client in the checkout it sits in: here a
    copy of it whose scripts/setup.sh fails. Exit 2 naming the build, not the build's status."""
    root = os.path.join(scratch, "checkout-whose-build-fails")
    os.makedirs(os.path.join(root, "deploy/ci"))
    os.makedirs(os.path.join(root, "scripts"))
    script = os.path.join(root, "deploy/ci/torchscan-ci.sh")
    shutil.copy(SCRIPT, script)
    setup = os.path.join(root, "scripts/setup.sh")
    with open(setup, "w") as f:
        f.write("#!/bin/sh\necho 'setup: no network' >&2\nexit 1\n")
    os.chmod(setup, 0o755)
    job = Job(scratch, "github-build-fails", env, AA_JOB)
    del job.env["TORCHSCAN_CLIENT"]
    job.start(script)
    if job.run.returncode != 2 or "could not build torchscan-client" not in job.run.stderr:
        return f"exit {job.run.returncode} (expected 2, naming the build): {job.output()[-800:]}"
    if requests:
        return "the job called the platform's API although it never compared"
    return None


def required_variables():
    """{platform: {name: kind}} from the script's REQUIRED list ("NAME KIND PLATFORM" entries)."""
    block = re.search(r"^REQUIRED=\((.*?)^\)", read_text(SCRIPT), re.S | re.M)
    if not block:
        raise ValueError(f"{SCRIPT} has no REQUIRED=( ... ) list")
    out = {"github": {}, "gitlab": {}}
    for name, kind, scope in re.findall(r'"(\w+) (\w+) (\w+)"', block.group(1)):
        for platform in out:
            if scope in ("any", platform):
                out[platform][name] = kind
    if not out["github"] or not out["gitlab"]:
        raise ValueError(f"{SCRIPT}: REQUIRED lists nothing for a platform")
    return out


def check_github_workflow(required, platform_env):
    doc = load_yaml_documents(GITHUB_WORKFLOW)[0]
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` key as true
    if not isinstance(on, dict) or "pull_request" not in on:
        return "on: has no pull_request trigger"
    if (doc.get("permissions") or {}).get("pull-requests") != "write":
        return "permissions: lacks pull-requests: write (the comment)"
    for job_id, job in doc["jobs"].items():
        steps = job.get("steps", [])
        runs = [s for s in steps if "deploy/ci/torchscan-ci.sh" in s.get("run", "")]
        if not runs:
            continue
        if not job.get("runs-on"):
            return f"jobs.{job_id} has no runs-on"
        step = runs[0]
        env = dict(doc.get("env") or {}, **(job.get("env") or {}), **(step.get("env") or {}))
        for name, kind in required.items():
            if kind == "platform":
                if name not in platform_env:
                    return f"{name}: the script needs it from GitHub, but a pull_request step does not get it"
            elif name not in env:
                return f"{name} ({kind}) is not set in the workflow's, the job's or the step's env:"
            elif kind == "secret" and (env[name] != f"${{{{ secrets.{name} }}}}" or name not in (step.get("env") or {})):
                return f"{name} must be passed as ${{{{ secrets.{name} }}}} in the script step's env: (got {env[name]!r})"
        uploads = [s for s in steps[steps.index(step) + 1:] if s.get("uses", "").startswith("actions/upload-artifact")]
        if not uploads or OUT not in uploads[0].get("with", {}).get("path", "") or \
                "cancelled()" not in str(uploads[0].get("if", "")):
            return f"no upload-artifact step after the script keeps {OUT}/ when the job fails (if: !cancelled())"
        return None
    return "no job has a step that runs deploy/ci/torchscan-ci.sh"


def check_gitlab_job(required, platform_env):
    doc = load_yaml_documents(GITLAB_JOB)[0]
    jobs = {k: v for k, v in doc.items() if isinstance(v, dict) and "script" in v}
    for job_id, job in jobs.items():
        if not any("deploy/ci/torchscan-ci.sh" in line for line in job["script"]):
            continue
        if not any("merge_request_event" in str(r.get("if", "")) for r in job.get("rules", [])):
            return f"{job_id}: no rules: entry runs it on merge_request_event"
        artifacts = job.get("artifacts") or {}
        if artifacts.get("when") != "always" or not any(p.rstrip("/") == OUT for p in artifacts.get("paths", [])):
            return f"{job_id}: artifacts: must keep {OUT}/ with when: always"
        variables = dict(doc.get("variables") or {}, **(job.get("variables") or {}))
        readme = read_text("deploy/README.md")
        for name, kind in required.items():
            if kind == "platform" and name not in platform_env:
                return f"{name}: the script needs it from GitLab, but a merge request pipeline does not get it"
            if kind == "setting" and name not in variables:
                return f"{name} is not in the job's variables:"
            if kind == "secret" and name in variables:
                return f"{name} is a secret: it belongs in Settings > CI/CD > Variables, not in the file"
            if kind == "secret" and name not in readme:
                return f"{name} is a secret the README's CI section does not tell GitLab users to add"
        return None
    return "no job's script runs deploy/ci/torchscan-ci.sh"


def main(argv):
    xml_path = xml_flag(argv)
    checks = Checks("ci_recipe_test")
    scratch = tempfile.mkdtemp(prefix="ci.")
    required = required_variables()
    api = start_api()
    api_url = f"http://127.0.0.1:{api.server_address[1]}"
    daemon = RemoteDaemon()
    github = github_env(daemon, api_url, scratch)
    gitlab = gitlab_env(daemon, api_url)
    checks.run("github workflow: on pull_request, runs the script with the env it reads, keeps the artifacts",
               check_github_workflow, required["github"], github)
    checks.run("gitlab job: on merge_request_event, runs the script with the variables it reads, keeps the artifacts",
               check_gitlab_job, required["gitlab"], gitlab)

    github_comments = "/repos/acme/models/issues/7/comments"
    gitlab_notes = "/api/v4/projects/42/merge_requests/3/notes"
    missing = Job(scratch, "github-no-token", {k: v for k, v in github.items() if k != "TORCHSCAN_TOKEN"}, AA_JOB)
    checks.run("github: no TORCHSCAN_TOKEN is exit 2 naming it and where to set it", lambda: check_missing(
        missing.start(), api.requests, "TORCHSCAN_TOKEN", "Settings > Secrets and variables > Actions"))
    api.requests.clear()
    missing = Job(scratch, "gitlab-no-api-token", {k: v for k, v in gitlab.items() if k != "TORCHSCAN_GITLAB_TOKEN"},
                  AA_JOB)
    checks.run("gitlab: no TORCHSCAN_GITLAB_TOKEN is exit 2 naming it and where to set it", lambda: check_missing(
        missing.start(), api.requests, "TORCHSCAN_GITLAB_TOKEN", "Settings > CI/CD > Variables"))
    api.requests.clear()
    bogus = Job(scratch, "github-bogus-comment", dict(github, TORCHSCAN_COMMENT="bogus"), AA_JOB)
    checks.run("github: TORCHSCAN_COMMENT=bogus is exit 2 naming it and where to set it", lambda: check_missing(
        bogus.start(), api.requests, "TORCHSCAN_COMMENT=bogus", f"set TORCHSCAN_COMMENT in the workflow's env: "
        f"({GITHUB_WORKFLOW})"))
    api.requests.clear()
    checks.run("github: a client that cannot be built is exit 2 naming the build",
               check_build_fails, scratch, github, api.requests)
    api.requests.clear()

    try:
        failure = daemon.start()
        if not checks.check("a torchscand serves TCP with TLS and a token", failure is None, failure):
            return checks.finish(xml_path)
        # What the jobs find on the request: on GitHub someone else's comment, another benchmark's
        # and 118 more; on GitLab 150 notes. The verdict's comment is then on the second page.
        untouched = [{"id": 9001, "body": "LGTM, but is it faster?"},
                     {"id": 9002, "body": "<!-- torchscan-ci: other-bench -->\n### TorchScan: other-bench\n"}]
        api.comments[github_comments] = [dict(c) for c in untouched] + \
            [{"id": 9100 + i, "body": f"comment {i}"} for i in range(118)]
        api.comments[gitlab_notes] = [{"id": 10000 + i, "body": f"note {i}"} for i in range(150)]
        github_auth = ("Authorization", f"Bearer {GITHUB_API_TOKEN}")
        gitlab_auth = ("PRIVATE-TOKEN", GITLAB_API_TOKEN)
        platforms = {"github": (github, github_comments, github_auth, "a" * 40, "PATCH",
                                "/repos/acme/models/issues/comments/"),
                     "gitlab": (gitlab, gitlab_notes, gitlab_auth, "b" * 40, "PUT", gitlab_notes + "/")}
        # (platform, --fail-on, job, the API's status, update: the run updates the previous run's
        # comment on that platform, what)
        cases = [
            ("github", "slower", AA_JOB, 201, False, "the exit status follows --fail-on slower"),
            ("gitlab", "not-faster", AA_JOB, 201, False, "the exit status follows --fail-on not-faster"),
            # The next push on each platform: the same comment, updated.
            ("github", "any-change", BAD_CHECK_JOB, 201, True, "a failed output check is exit 1"),
            ("gitlab", "any-change", BAD_CHECK_JOB, 201, True, "a failed output check is exit 1"),
            # The platform refuses every request (403): a gate that passed (none: always) is exit 7 ...
            ("github", "none", AA_JOB, 403, False, "a refused comment after a passed gate is exit 7"),
            # ... a failed one keeps its status.
            ("gitlab", "any-change", BAD_CHECK_JOB, 403, False, "a refused comment keeps the failed check's exit 1"),
        ]
        for i, (platform, fail_on, spec, api_status, update, what) in enumerate(cases):
            env, listing, (header, value), revision, update_method, item = platforms[platform]
            if api_status == 403:
                api.comments.clear()
            expected = [("POST", listing)]
            if update:
                previous = marked(api.comments[listing])
                if not checks.check(f"{platform}: the previous job's comment carries the marker", len(previous) == 1,
                                    f"{len(previous)} comments start with {MARKER}"):
                    continue
                expected = [(update_method, item + str(previous[0]["id"]))]
            job = Job(scratch, f"{platform}-{i}", dict(env, TORCHSCAN_FAIL_ON=fail_on), spec)
            api.status = api_status
            checks.run(f"{platform}: {what}, the verdict {'updates the comment' if update else 'is posted'} as "
                       "Markdown with the API token, no token printed",
                       lambda: check_job(job.start(), fail_on, api.requests, expected, header, value, revision,
                                         api_status))
            if spec is BAD_CHECK_JOB:
                checks.run(f"{platform}: the failed check is the job's verdict", lambda: None if job.comparison()[
                    "output_check"]["status"] == "failed" else "the bfloat16 candidate with rtol 0 passed its check")
            if update:
                checks.run(f"{platform}: the next push updates the one comment with the marker (on the listing's "
                           "page 2), and leaves the others alone",
                           check_updated, job, api, listing, untouched if platform == "github" else [])
            api.requests.clear()
        api.status = 201
        api.comments.clear()

        # Someone else's comment carries the marker: the update is refused, a new comment is posted.
        api.comments[github_comments] = [{"id": 500, "body": MARKER + "\nquoted by a reviewer\n"}]
        api.update_status = 403
        refused_update = Job(scratch, "github-update-refused", dict(github, TORCHSCAN_FAIL_ON="none"), AA_JOB)
        checks.run("github: an update refused (403) posts a new comment instead, the exit status unchanged",
                   lambda: check_update_refused(refused_update.start(), api, github_comments,
                                                "/repos/acme/models/issues/comments/500", github_auth))
        api.update_status = None
        api.requests.clear()
        api.comments.clear()

        # TORCHSCAN_COMMENT=new: a comment per push, as before sticky comments.
        api.comments[gitlab_notes] = [{"id": 600, "body": MARKER + "\nthe previous push's verdict\n"}]
        new = Job(scratch, "gitlab-comment-new", dict(gitlab, TORCHSCAN_FAIL_ON="none", TORCHSCAN_COMMENT="new"),
                  AA_JOB)
        checks.run("gitlab: TORCHSCAN_COMMENT=new posts a second comment without listing the request's",
                   lambda: check_job(new.start(), "none", api.requests, [("POST", gitlab_notes)], *gitlab_auth,
                                     "b" * 40) or (None if len(marked(api.comments[gitlab_notes])) == 2 and
                                                   not any(m == "GET" for m, _, _, _ in api.requests)
                                                   else f"the notes: {api.comments[gitlab_notes]}"))
        api.requests.clear()
        api.comments.clear()

        # A name (free text, as --label) that would end the marker's HTML comment: a wrong token
        # stops the client at once, and the note still starts with an intact marker.
        breaker = Job(scratch, "gitlab-marker-breaking-name",
                      dict(gitlab, TORCHSCAN_NAME=BREAKING_NAME, TORCHSCAN_TOKEN="not-the-daemon-token"), AA_JOB)
        checks.run("gitlab: a TORCHSCAN_NAME holding --> and HTML cannot break the comment's marker line",
                   lambda: check_marker_escaped(breaker.start(), api.requests))
        api.requests.clear()
        api.comments.clear()

        refused = Job(scratch, "github-wrong-token", dict(github, TORCHSCAN_TOKEN="not-the-daemon-token"), AA_JOB)
        checks.run("github: a wrong token is the client's exit 5, and the 'no comparison' note is posted",
                   lambda: check_no_comparison(refused.start(), api.requests, github_comments, 5))
        api.requests.clear()
    finally:
        status = daemon.stop()
        api.shutdown()
    checks.check("SIGTERM stops the daemon cleanly (exit 0)", status == 0, f"exit {status}")
    daemon.remove()
    shutil.rmtree(scratch, ignore_errors=True)
    return checks.finish(xml_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
