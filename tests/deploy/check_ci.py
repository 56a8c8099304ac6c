"""deploy/ci/ for real: torchscan-ci.sh run the way each CI runs it, and the workflow files that
run it checked as YAML against what the script reads.

Usage: check_ci.py [--xml FILE]   (run by bazel test, from the runfiles root)

The job runs with the environment GitHub Actions (a pull_request event) or GitLab CI (a merge
request pipeline) gives it, and nothing else from this process's environment: the platform's API
URL points at a local HTTP server that records each POST and answers 201 (or, for the cases of a
comment the platform refuses, 403), and TORCHSCAN_DAEMON
at a real torchscand over TCP with TLS and a token (remote_daemon.py, as remote_client_test
starts it). TORCHSCAN_CLIENT is a wrapper that records the client's command lines, the modes of
the files they name and the secrets in its environment, then runs the real client. The jobs are
tiny (the built-in linear model, --min-run-time 0.05). No timing verdict is asserted: the exit
status must be what --fail-on gives for the label comparison.json got (7 instead of 0 when the
comment was refused). A wrong token stops the client before comparing: its status (5) is the
job's, and the short "no comparison" note is posted instead of a verdict.
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
    """Records each POST as (path, headers, body) in the server's `posts` and answers the server's
    `status` (201; 403 as a platform refusing a token without the right scope)."""

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.posts.append((self.path, self.headers, body.decode("utf-8")))  # headers: any case
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"id": 1}')

    def log_message(self, *args):
        pass


def start_api():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Api)
    server.posts = []
    server.status = 201
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


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


def check_comment(posts, path, header, value):
    """None when exactly one POST went to `path` with header: value and a comment body that is
    Markdown (no HTML) of at most MAX_COMMENT_LINES lines: the verdict (render --format markdown)."""
    if [p for p, _, _ in posts] != [path]:
        return f"expected one POST to {path}, got {[p for p, _, _ in posts]}"
    _, headers, body = posts[0]
    if headers.get(header) != value:
        return f"header {header} is {headers.get(header)!r}, expected {value!r}"
    comment = json.loads(body)["body"]
    lines = comment.rstrip("\n").split("\n")
    if len(lines) > MAX_COMMENT_LINES:
        return f"the comment has {len(lines)} lines (at most {MAX_COMMENT_LINES}):\n{comment}"
    if re.search(r"</?[a-zA-Z][^>]*>", comment):
        return f"the comment holds HTML:\n{comment}"
    if not (lines[0].startswith("### TorchScan") and "ci-linear" in lines[0]) or \
            not all(w in comment for w in ("**Output check:**", "**Latency change:**")):
        return f"the comment is not the verdict (a heading naming the benchmark, the check, the label):\n{comment}"
    return None


def check_job(job, fail_on, posts, path, header, value, revision, api_status=201):
    """The checks every job that compared must pass; None or the first failure. `api_status`: what
    the platform's API answered the comment (not 2xx: a gate that passed becomes exit 7, any other
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
    return check_comment(posts, path, header, value)


def check_no_comparison(job, posts, path, status):
    """A client stopped before comparing (a wrong token: exit 5): its status is the job's, and the
    short note saying so is posted instead of the verdict."""
    output = job.output()
    if job.run.returncode != status:
        return f"exit {job.run.returncode}, expected the client's {status}: {output[-1500:]}"
    if any(secret in output for secret in SECRETS):
        return "a token appears in the job's output"
    if os.path.exists(os.path.join(job.folder, OUT, "comparison.json")):
        return f"{OUT}/comparison.json exists although the client was refused"
    if [p for p, _, _ in posts] != [path]:
        return f"expected one POST to {path}, got {[p for p, _, _ in posts]}"
    note = json.loads(posts[0][2])["body"]
    if not note.startswith("### TorchScan: no comparison") or f"(exit {status}:" not in note or "ci-linear" not in note:
        return f"the note does not say the client stopped before comparing (exit {status}):\n{note}"
    return None


def check_missing(job, posts, name, where):
    if job.run.returncode != 2 or name not in job.run.stderr or where not in job.run.stderr:
        return f"exit {job.run.returncode} (expected 2, naming {name} and {where}): {job.output()[-800:]}"
    if posts or job.client_lines():
        return "the job went on without the variable (it ran the client or posted)"
    return None


def check_build_fails(scratch, env, posts):
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
    if posts:
        return "the job posted although it never compared"
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
        missing.start(), api.posts, "TORCHSCAN_TOKEN", "Settings > Secrets and variables > Actions"))
    api.posts.clear()
    missing = Job(scratch, "gitlab-no-api-token", {k: v for k, v in gitlab.items() if k != "TORCHSCAN_GITLAB_TOKEN"},
                  AA_JOB)
    checks.run("gitlab: no TORCHSCAN_GITLAB_TOKEN is exit 2 naming it and where to set it", lambda: check_missing(
        missing.start(), api.posts, "TORCHSCAN_GITLAB_TOKEN", "Settings > CI/CD > Variables"))
    api.posts.clear()
    checks.run("github: a client that cannot be built is exit 2 naming the build",
               check_build_fails, scratch, github, api.posts)
    api.posts.clear()

    try:
        failure = daemon.start()
        if not checks.check("a torchscand serves TCP with TLS and a token", failure is None, failure):
            return checks.finish(xml_path)
        cases = [
            ("github", github, "slower", AA_JOB, github_comments, "Authorization", f"Bearer {GITHUB_API_TOKEN}",
             "a" * 40, 201, "the exit status follows --fail-on slower"),
            ("gitlab", gitlab, "not-faster", AA_JOB, gitlab_notes, "PRIVATE-TOKEN", GITLAB_API_TOKEN,
             "b" * 40, 201, "the exit status follows --fail-on not-faster"),
            ("github", github, "any-change", BAD_CHECK_JOB, github_comments, "Authorization",
             f"Bearer {GITHUB_API_TOKEN}", "a" * 40, 201, "a failed output check is exit 1"),
            ("gitlab", gitlab, "any-change", BAD_CHECK_JOB, gitlab_notes, "PRIVATE-TOKEN", GITLAB_API_TOKEN,
             "b" * 40, 201, "a failed output check is exit 1"),
            # The platform refuses the comment (403): a gate that passed (none: always) is exit 7 ...
            ("github", github, "none", AA_JOB, github_comments, "Authorization", f"Bearer {GITHUB_API_TOKEN}",
             "a" * 40, 403, "a refused comment after a passed gate is exit 7"),
            # ... a failed one keeps its status.
            ("gitlab", gitlab, "any-change", BAD_CHECK_JOB, gitlab_notes, "PRIVATE-TOKEN", GITLAB_API_TOKEN,
             "b" * 40, 403, "a refused comment keeps the failed check's exit 1"),
        ]
        for i, (platform, env, fail_on, spec, path, header, value, revision, api_status, what) in enumerate(cases):
            job = Job(scratch, f"{platform}-{i}", dict(env, TORCHSCAN_FAIL_ON=fail_on), spec)
            api.status = api_status
            checks.run(f"{platform}: {what}, the verdict is posted as Markdown with the API token, no token printed",
                       lambda: check_job(job.start(), fail_on, api.posts, path, header, value, revision, api_status))
            if spec is BAD_CHECK_JOB:
                checks.run(f"{platform}: the failed check is the job's verdict", lambda: None if job.comparison()[
                    "output_check"]["status"] == "failed" else "the bfloat16 candidate with rtol 0 passed its check")
            api.posts.clear()
        api.status = 201
        refused = Job(scratch, "github-wrong-token", dict(github, TORCHSCAN_TOKEN="not-the-daemon-token"), AA_JOB)
        checks.run("github: a wrong token is the client's exit 5, and the 'no comparison' note is posted",
                   lambda: check_no_comparison(refused.start(), api.posts, github_comments, 5))
        api.posts.clear()
    finally:
        status = daemon.stop()
        api.shutdown()
    checks.check("SIGTERM stops the daemon cleanly (exit 0)", status == 0, f"exit {status}")
    daemon.remove()
    shutil.rmtree(scratch, ignore_errors=True)
    return checks.finish(xml_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
