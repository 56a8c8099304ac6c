"""The soak's processes: its torchscand (started, killed, restarted) and the process table.

Part of benchmarks/soak_benchmark.py (see its header); no figures here.
"""

import collections
import os
import signal
import subprocess
import sys
import threading
import time


class GiveUp:
    """Ends the soak with "<program>: giving up: <why>" and exit 1."""

    program = "soak_benchmark"
    daemon = None  # the Daemon to kill first

    @classmethod
    def now(cls, why):
        print(f"{cls.program}: giving up: {why}", file=sys.stderr, flush=True)
        if cls.daemon is not None and cls.daemon.process is not None:
            cls.daemon.process.kill()
        os._exit(1)  # from any thread


class Daemon:
    """torchscand on a fixed socket and state folder; restarted after each kill."""

    def __init__(self, binary, client, folder, models):
        self.binary, self.client, self.folder, self.models = binary, client, folder, models
        self.socket = os.path.join(folder, "torchscand.sock")
        self.process = None
        self.starts = 0
        self.started_at = 0.0
        self.lock = threading.Lock()
        GiveUp.daemon = self

    def args(self):
        args = [self.binary, "--state-dir", os.path.join(self.folder, "state"), "--listen", "unix:" + self.socket,
                "--sandbox", "namespaces", "--share", self.models, "--max-upload", "2000000",
                "--job-wall-time", "300"]
        if os.geteuid() == 0:
            args += ["--worker-user", "root"]
        return args

    def start(self):
        with self.lock:
            self.starts += 1
            log = open(os.path.join(self.folder, f"torchscand-{self.starts}.log"), "wb")
            self.process = subprocess.Popen(self.args(), stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
            self.started_at = time.monotonic()
        deadline = time.monotonic() + 60
        while not os.path.exists(self.socket) or not self.answers():
            if self.process.poll() is not None:
                GiveUp.now(f"torchscand exited {self.process.returncode}; see {log.name}")
            if time.monotonic() > deadline:
                GiveUp.now(f"torchscand did not answer within 60 s; see {log.name}")
            time.sleep(0.2)

    def answers(self):
        return subprocess.run(self.client_base() + ["info"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=60, check=False).returncode == 0

    def client_base(self):
        return [self.client, "--daemon", "unix:" + self.socket]

    def pid(self):
        with self.lock:
            return self.process.pid

    def kill_and_restart(self):
        with self.lock:
            self.process.kill()
            self.process.wait()
            if os.path.exists(self.socket):
                os.unlink(self.socket)
        self.start()

    def stop(self):
        with self.lock:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                return False
        return True


def processes():
    """{pid: (ppid, program name)} of every process, from /proc."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
            exe = os.path.basename(os.readlink(f"/proc/{entry}/exe"))
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        found[int(entry)] = (ppid, exe.replace(" (deleted)", ""))
    return found


def ours(name):
    return name in ("torchscan-worker", "torchscan_rss_child")


def descendants_of(root, table):
    children = collections.defaultdict(list)
    for pid, (ppid, _) in table.items():
        children[ppid].append(pid)
    seen, todo = set(), [root]
    while todo:
        pid = todo.pop()
        for child in children[pid]:
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def orphans(daemon_pid):
    """Our worker and RSS child processes not under torchscand `daemon_pid` (None: any)."""
    table = processes()
    under = descendants_of(daemon_pid, table) if daemon_pid else set()
    return sorted(pid for pid, (_, name) in table.items() if ours(name) and pid not in under)


def vm_rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None
