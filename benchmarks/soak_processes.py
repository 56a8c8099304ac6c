"""The soak's processes: its torchscand (started, killed, restarted) and the process table.

Part of benchmarks/soak_benchmark.py (see its header); no figures here.
"""

import collections
import os
import shutil
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
    """{pid: (ppid, executable path)} of every process, from /proc."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
            exe = os.readlink(f"/proc/{entry}/exe")
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        found[int(entry)] = (ppid, exe.replace(" (deleted)", ""))
    return found


def install_programs(daemon, folder):
    """Copies torchscand, its worker and RSS child (beside it, or in Bazel's layout) into
    `folder`, where torchscand finds the worker beside itself: the soak's processes are then
    those whose executable lies there, whatever else runs on the machine. Returns torchscand."""
    here = os.path.dirname(daemon)
    places = {"torchscan-worker": ["torchscan-worker", "../worker/torchscan-worker"],
              "torchscan_rss_child": ["torchscan_rss_child", "../passes/torchscan_rss_child"]}
    os.makedirs(folder)
    shutil.copy2(daemon, os.path.join(folder, "torchscand"))
    for name, candidates in places.items():
        found = [os.path.join(here, c) for c in candidates if os.access(os.path.join(here, c), os.X_OK)]
        if not found:
            GiveUp.now(f"no {name} beside {daemon} or in Bazel's layout; build it (see the header)")
        shutil.copy2(found[0], os.path.join(folder, name))
    return os.path.join(folder, "torchscand")


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


def orphans(programs, daemon_pid):
    """Workers and RSS children run from `programs` (install_programs) that are not under
    torchscand `daemon_pid` (None: every one)."""
    table = processes()
    under = descendants_of(daemon_pid, table) if daemon_pid else set()
    return sorted(pid for pid, (_, exe) in table.items()
                  if os.path.dirname(exe) == programs and os.path.basename(exe) != "torchscand" and pid not in under)


def vm_rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None
