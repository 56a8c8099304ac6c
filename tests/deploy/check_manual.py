"""deploy/manual/torchscand-start.sh, run for real as deploy/README.md shows it (as root): it makes
a throw-away user and group, the state and socket folders, installs the configuration, starts
torchscand as that user in the background; a job runs through the socket; a second start is
refused while the first runs; --stop ends it. The programs are copied where the daemon's user
can run them, and every path goes under a scratch folder; the user and group are removed
afterwards. Without root the script refuses, naming why, and that is what is checked.
"""

import grp
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

from checklib import Checks, program, xml_flag

SCRIPT = "deploy/manual/torchscand-start.sh"
CONFIG = "deploy/systemd/torchscand.json"  # what the script installs when the configuration is missing


def copy_checkout(scratch):
    """The script and the file it installs, copied with their layout under `scratch` (which every
    user can enter), so that an unprivileged user can run the script; the copy's path."""
    for path in (SCRIPT, CONFIG):
        os.makedirs(os.path.join(scratch, "checkout", os.path.dirname(path)), exist_ok=True)
        shutil.copy2(path, os.path.join(scratch, "checkout", path))
    return os.path.join(scratch, "checkout", SCRIPT)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, **kw)


def uid_of(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Uid:"):
                return int(line.split()[1])
    return None


class Started:
    """The script run once in a scratch folder, with the user and group it made."""

    def __init__(self, scratch, script):
        self.scratch, self.script = scratch, script
        tag = str(os.getpid() % 100000)
        self.user, self.group = "tsmanual" + tag, "tsmanualu" + tag
        self.bin = os.path.join(scratch, "bin")
        os.makedirs(self.bin)
        for name in ("torchscand", "torchscan-worker", "torchscan_rss_child", "torchscan-client"):
            shutil.copy2(program(name), self.bin)
        self.run_dir = os.path.join(scratch, "run")
        self.state_dir = os.path.join(scratch, "state")
        self.config = os.path.join(scratch, "etc", "torchscand.json")
        self.log = os.path.join(scratch, "torchscand.log")
        self.socket = os.path.join(self.run_dir, "torchscand.sock")
        self.first = self.start()

    def args(self):
        return ["--bin", self.bin, "--config", self.config, "--user", self.user, "--group", self.group,
                "--state-dir", self.state_dir, "--run-dir", self.run_dir, "--log", self.log]

    def start(self):
        return run(["bash", self.script] + self.args())

    def pid(self):
        with open(os.path.join(self.run_dir, "torchscand.pid")) as f:
            return int(f.read())

    def client(self, *argv):
        return run([os.path.join(self.bin, "torchscan-client"), "--daemon", "unix:" + self.socket] + list(argv))

    def remove_users(self):
        run(["bash", self.script, "--stop", "--run-dir", self.run_dir])
        run(["userdel", self.user])
        run(["groupdel", self.group])


def check_started(s):
    if s.first.returncode != 0:
        return f"exited {s.first.returncode}: {s.first.stderr.strip() or s.first.stdout.strip()}"
    if "torchscand runs as " + s.user not in s.first.stdout:
        return f"did not say where the daemon runs: {s.first.stdout.strip()}"
    if not os.path.exists(s.config):
        return f"the configuration was not installed at {s.config}"
    if uid_of(s.pid()) != pwd.getpwnam(s.user).pw_uid:
        return f"torchscand (pid {s.pid()}) does not run as {s.user}"
    st = os.stat(s.socket)
    if (st.st_mode & 0o777) != 0o660 or st.st_gid != grp.getgrnam(s.group).gr_gid:
        return f"socket {s.socket} is mode {oct(st.st_mode & 0o777)}, gid {st.st_gid}: not 0660 {s.group}"
    if s.user not in grp.getgrnam(s.group).gr_mem:
        return f"{s.user} is not a member of {s.group}"
    return None


def check_job(s):
    out = os.path.join(s.scratch, "out")
    measured = s.client("measure", "--model", "linear", "--min-run-time", "0.01", "--output", out)
    if measured.returncode != 0:
        return f"measure exited {measured.returncode}: {measured.stderr.strip()[-600:]}"
    if not os.path.exists(os.path.join(out, "report.json")):
        return f"no report.json in {out}"
    info = s.client("info")
    if "sandbox" not in info.stdout:
        return f"info does not describe the daemon: {info.stdout.strip()[-400:]}"
    return None


def check_second_start(s):
    again = s.start()
    if again.returncode != 1 or "already runs" not in again.stderr:
        return f"a second start exited {again.returncode}: {again.stderr.strip()}"
    return None


def check_stop(s):
    pid = s.pid()
    stopped = run(["bash", s.script, "--stop", "--run-dir", s.run_dir])
    if stopped.returncode != 0 or f"stopped torchscand (pid {pid})" not in stopped.stdout:
        return f"--stop exited {stopped.returncode}: {stopped.stdout.strip()} {stopped.stderr.strip()}"
    if os.path.exists(f"/proc/{pid}"):
        return f"torchscand (pid {pid}) still runs after --stop"
    return None


def check_refuses_without_root(script):
    drop = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if os.geteuid() == 0 else []
    refused = run(drop + ["bash", script])
    if refused.returncode != 2 or "run as root" not in refused.stderr:
        return f"exited {refused.returncode}: {refused.stderr.strip()}"
    return None


def main(argv):
    xml_path = xml_flag(argv)
    checks = Checks("manual_daemon_test")
    with tempfile.TemporaryDirectory() as scratch:
        os.chmod(scratch, 0o755)
        script = copy_checkout(scratch)
        checks.run("without root the script refuses, saying why", check_refuses_without_root, script)
        if os.geteuid() == 0:
            s = Started(scratch, script)
            try:
                checks.run("start: user, group, folders, configuration, socket 0660 of the group", check_started, s)
                checks.run("a job runs through the socket", check_job, s)
                checks.run("a second start is refused while the first runs", check_second_start, s)
                checks.run("--stop ends the daemon", check_stop, s)
            finally:
                s.remove_users()
    return checks.finish(xml_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
