#!/opt/torchscan/venv/bin/python
"""torchscand under faults for an hour: mixed jobs, random kill -9, nothing lost, nothing left.

A soak, not a test (issue 24, item 6). It prints figures; it exits 1 when a figure that must
hold does not.

  bazel build //benchmarks:soak_benchmark //daemon:torchscand //worker:torchscan-worker \
    //passes:torchscan_rss_child //client:torchscan-client &&
  bazel-bin/benchmarks/soak_benchmark bazel-bin/daemon/torchscand bazel-bin/client/torchscan-client
    [--minutes 60] [--clients 3] [--seed N] [--quick]

One resident torchscand as deployed: sandboxed (--sandbox namespaces), a warm spare worker,
a private unix socket and state folder under /tmp (removed at the end unless --keep), a
small --max-upload, workers as root when run as root (like the client's private daemon).
`--clients` client loops, each running the real torchscan-client one job after another,
chosen at random:
  measure (built-in linear; an uploaded TorchScript module; the same module by a shared
  path, --daemon-path), measure --rss, compare (two
  uploaded modules), calibrate (2 pairs), a failing module (exit 3 expected), an oversize
  upload (refused, exit 5), a cancel (a long job cancelled with `jobs cancel` after 1-3 s),
  a disconnect (the client is killed -9 0.3-2 s after it submits; the job runs on).
Beside them a killer, every 10-40 s (quick: 2-5 s), kill -9s in turn: a worker (the running
job's, or the warm spare), an RSS child (waiting up to 20 s for one to run), or torchscand
itself, which is restarted on the same state folder at once. The daemon is killed only in the first 40 % of the run, so that the
last incarnation lives long enough to show its memory trend.

At the end (no new jobs; the queue drained; torchscand stopped with SIGTERM) it counts:
  - jobs lost: a job id a client was given (its "[job-N] submitted" line) that the daemon does
    not list in a final state (succeeded, failed, cancelled, interrupted: it ran when the
    daemon was killed); must be 0;
  - unreadable results: a succeeded job whose `jobs fetch` fails or whose JSON does not load;
    must be 0;
  - wrong outcomes: a client exit code the job kind does not allow (e.g. a failing module that
    succeeded, a measure that exited 2); must be 0. A job whose worker or daemon was killed
    may end failed (exit 3) or the client may lose the daemon (exit 4): allowed, and counted;
  - orphans: workers and RSS children not under the current torchscand, 10 s after each
    daemon restart, and any left after the final stop; must be 0. The soak runs copies of the
    three programs from its own folder, so that it tells its processes from any other
    torchscand's on the machine by their executable's path;
  - the daemon's memory: VmRSS every 15 s (memory.csv in a kept folder); the slope (MiB per
    hour, least squares) of the
    last incarnation from 10 minutes after its start to the end (stated, not asserted).
"""

import argparse
import collections
import faulthandler
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from soak_processes import GiveUp, Daemon, descendants_of, install_programs, orphans, processes, vm_rss_mib

PROGRAM = "soak_benchmark"
FINAL_STATES = {"succeeded", "failed", "cancelled", "interrupted"}
# Exit codes a client may end with, per job kind, when nothing was killed (torchscan-client
# --help: 0 success, 3 job failed, 5 refused) and additionally when a kill hit its job.
EXPECTED = {
    "measure": {0}, "measure-module": {0}, "measure-shared": {0}, "measure-rss": {0}, "compare": {0},
    "calibrate": {0}, "failing-module": {3}, "oversize": {5}, "cancel": {3},
    "disconnect": {-9, 0},  # 0: the job finished before the client was killed
}
AFTER_A_KILL = {3, 4}  # the job failed (its worker was killed), or the daemon went away


def say(text):
    print(f"{PROGRAM}: {text}", flush=True)


def make_models(folder):
    """The soak's TorchScript modules and tensor files, saved with the project environment's torch."""
    import torch  # pylint: disable=import-outside-toplevel

    class Chain(torch.nn.Module):
        def __init__(self, layers):
            super().__init__()
            self.layers = torch.nn.ModuleList([torch.nn.Linear(64, 64) for _ in range(layers)])

        def forward(self, x):
            for layer in self.layers:
                x = torch.tanh(layer(x))
            return x

    class Failing(torch.nn.Module):
        def forward(self, x):
            assert x.shape[0] < 0, "soak: this module fails on purpose"
            return x

    torch.manual_seed(0)
    chain = torch.jit.script(Chain(4))
    chain.save(os.path.join(folder, "chain.pt"))
    chain.save(os.path.join(folder, "chain_copy.pt"))
    torch.jit.script(Failing()).save(os.path.join(folder, "failing.pt"))
    torch.save(torch.zeros(700_000), os.path.join(folder, "oversize.pt"))  # 2.8 MB > --max-upload


class Soak:
    def __init__(self, options, folder):
        self.options, self.folder = options, folder
        self.models = os.path.join(folder, "models")
        self.random = random.Random(options.seed)
        self.stop_at = time.monotonic() + options.minutes * 60
        self.daemon_kills_until = time.monotonic() + options.minutes * 60 * 0.4
        self.programs = os.path.join(folder, "bin")
        self.daemon = Daemon(install_programs(options.daemon, self.programs), options.client, folder, self.models)
        self.lock = threading.Lock()
        self.job_ids = {}                       # job id -> kind
        self.outcomes = collections.Counter()   # (kind, exit code)
        self.wrong = []                         # (kind, exit code, stderr tail)
        self.kills = collections.Counter()      # victim kind
        self.kill_times = []                    # monotonic times of kills
        self.down_windows = []                  # (killed, answering again) of each daemon kill
        self.orphans_seen = []                  # (when, pids)
        self.memory = []                        # (seconds since start, daemon start number, VmRSS MiB)
        self.begin = time.monotonic()
        self.sequence = 0

    # ---------------------------------------------------------------- clients
    def job_args(self, kind, out):
        m = self.models
        quick = ["--min-run-time", "0.05"]
        return {
            "measure": ["measure", "--model", "linear", *quick],
            "measure-module": ["measure", "--torchscript", f"{m}/chain.pt", "--input", "16x64", *quick],
            "measure-rss": ["measure", "--model", "linear", "--rss", *quick],
            "compare": ["compare", "--baseline", f"{m}/chain.pt", "--candidate", f"{m}/chain_copy.pt",
                        "--input", "16x64", "--rtol", "1e-4", "--atol", "1e-5", *quick],
            "measure-shared": ["measure", "--torchscript", f"{m}/chain.pt", "--daemon-path", "--input", "16x64",
                               *quick],
            "calibrate": ["calibrate", "--pairs", "2", "--rounds", "2", *quick],
            "failing-module": ["measure", "--torchscript", f"{m}/failing.pt", "--input", "4x64", *quick],
            "oversize": ["measure", "--torchscript", f"{m}/chain.pt", "--input-file", f"{m}/oversize.pt", *quick],
            "cancel": ["measure", "--model", "linear", "--min-run-time", "30"],
            "disconnect": ["measure", "--model", "linear", "--min-run-time", "1"],
        }[kind] + ["--output", out]

    def run_client(self, kind):
        with self.lock:
            self.sequence += 1
            out = os.path.join(self.folder, "out", f"{self.sequence:05d}-{kind}")
        started = time.monotonic()
        process = subprocess.Popen(self.daemon.client_base() + self.job_args(kind, out), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True, errors="replace")
        log = open(out + ".log", "w")
        lines, job_id = [], None
        acted = False
        for line in process.stderr:
            lines.append(line)
            log.write(line)
            match = re.match(r"\[(job-\d+)\] submitted", line)
            if match and job_id is None:
                job_id = match.group(1)
                with self.lock:
                    self.job_ids[job_id] = kind
                if kind in ("cancel", "disconnect") and not acted:
                    acted = True
                    threading.Thread(target=self.interfere, args=(kind, job_id, process), daemon=True).start()
        code = process.wait()
        log.close()
        with self.lock:
            self.outcomes[(kind, code)] += 1
            ended = time.monotonic()
            killed_meanwhile = any(started <= t <= ended for t in self.kill_times) or any(
                started <= up and down <= ended for down, up in self.down_windows)
            allowed = EXPECTED[kind] | (AFTER_A_KILL if killed_meanwhile else set())
            if kind == "cancel" and code == 0:
                allowed = allowed | {0}  # finished before the cancel arrived (a killed daemon's restart)
            if code not in allowed:
                self.wrong.append((kind, code, "".join(lines[-6:])))

    def interfere(self, kind, job_id, process):
        if kind == "disconnect":
            time.sleep(self.random.uniform(0.3, 2.0))
            process.kill()
        else:
            time.sleep(self.random.uniform(1.0, 3.0))
            subprocess.run(self.daemon.client_base() + ["jobs", "cancel", job_id], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60, check=False)

    def client_loop(self):
        kinds = list(EXPECTED)
        weights = [3, 3, 1, 2, 2, 1, 2, 1, 1, 1]
        while time.monotonic() < self.stop_at:
            self.run_client(self.random.choices(kinds, weights)[0])

    # ---------------------------------------------------------------- faults
    def killer_loop(self):
        """Kills in turn a worker, an RSS child and (in the first 40 % of the run) torchscand."""
        low, high = (2, 5) if self.options.quick else (10, 40)
        turn = 0
        while True:
            time.sleep(self.random.uniform(low, high))
            if time.monotonic() >= self.stop_at:
                return
            victims = ["worker", "rss child"] + (["torchscand"] if time.monotonic() < self.daemon_kills_until else [])
            victim = victims[turn % len(victims)]
            turn += 1
            if victim == "torchscand":
                self.kill_daemon()
            else:
                self.kill_child("torchscan-worker" if victim == "worker" else "torchscan_rss_child", victim)

    def note_kill(self, victim):
        with self.lock:
            self.kills[victim] += 1
            self.kill_times.append(time.monotonic())

    def kill_daemon(self):
        with self.lock:
            self.down_windows.append([time.monotonic(), float("inf")])  # down until it answers again
        self.note_kill("torchscand")
        self.daemon.kill_and_restart()
        with self.lock:
            self.down_windows[-1][1] = time.monotonic()
        time.sleep(10)
        left = orphans(self.programs, self.daemon.pid())
        if left:
            self.orphans_seen.append((round(time.monotonic() - self.begin), left))

    def kill_child(self, program, victim):
        """kill -9 of one `program` under torchscand, waiting up to 20 s for one to run."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            table = processes()
            under = descendants_of(self.daemon.pid(), table)
            pids = [pid for pid, (_, exe) in table.items() if os.path.basename(exe) == program and pid in under]
            if pids:
                try:
                    os.kill(self.random.choice(pids), signal.SIGKILL)
                except ProcessLookupError:
                    continue
                self.note_kill(victim)
                return
            time.sleep(0.05)
        with self.lock:
            self.kills[victim + " (none ran within 20 s)"] += 1

    def memory_loop(self):
        while time.monotonic() < self.stop_at:
            rss = vm_rss_mib(self.daemon.pid())
            if rss is not None:
                self.memory.append((time.monotonic() - self.begin, self.daemon.starts,
                                    time.monotonic() - self.daemon.started_at, rss))
            time.sleep(15)

    # ---------------------------------------------------------------- the end
    def final_states(self):
        listing = subprocess.run(self.daemon.client_base() + ["jobs", "list"], capture_output=True, text=True,
                                 timeout=120, check=False)
        if listing.returncode != 0:
            GiveUp.now("jobs list failed: " + listing.stderr[-500:])
        states = {}
        for line in listing.stdout.splitlines()[1:]:
            words = line.split()
            if len(words) >= 2 and words[0].startswith("job-"):
                states[words[0]] = words[1]
        return states

    def drain(self):
        deadline = time.monotonic() + 600
        while True:
            states = self.final_states()
            if all(s in FINAL_STATES for s in states.values()):
                return states
            if time.monotonic() > deadline:
                GiveUp.now("the queue did not drain within 10 minutes")
            time.sleep(2)

    def unreadable_results(self, states):
        bad = []
        for job_id, state in sorted(states.items()):
            if state != "succeeded":
                continue
            out = os.path.join(self.folder, "fetched", job_id)
            fetched = subprocess.run(self.daemon.client_base() + ["jobs", "fetch", job_id, "--output", out],
                                     capture_output=True, text=True, timeout=120, check=False)
            names = [n for n in os.listdir(out) if n.endswith(".json")] if os.path.isdir(out) else []
            try:
                if fetched.returncode != 0 or not names:
                    raise ValueError(fetched.stderr[-300:])
                for name in names:
                    with open(os.path.join(out, name)) as f:
                        json.load(f)
            except (ValueError, OSError) as error:
                bad.append((job_id, str(error)))
        return bad

    def memory_slope(self):
        """MiB per hour of the last incarnation's VmRSS from its 10th minute on (None: too few)."""
        last = self.daemon.starts
        settle = 60 if self.options.quick else 600
        points = [(t, rss) for t, start, age, rss in self.memory if start == last and age >= settle]
        if len(points) < 3:
            return None, points
        n = len(points)
        mean_t = sum(t for t, _ in points) / n
        mean_r = sum(r for _, r in points) / n
        var = sum((t - mean_t) ** 2 for t, _ in points)
        slope = sum((t - mean_t) * (r - mean_r) for t, r in points) / var if var else 0.0
        return slope * 3600, points

    def run(self):
        os.makedirs(self.models)
        os.makedirs(os.path.join(self.folder, "out"))
        make_models(self.models)
        self.daemon.start()
        say(f"torchscand pid {self.daemon.pid()} on {self.daemon.socket}; {self.options.clients} clients "
            f"for {self.options.minutes:g} min, seed {self.options.seed}")
        threads = [threading.Thread(target=self.client_loop) for _ in range(self.options.clients)]
        threads += [threading.Thread(target=self.killer_loop), threading.Thread(target=self.memory_loop)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        states = self.drain()
        return self.report(states)

    def report(self, states):
        lost = sorted(j for j in self.job_ids if states.get(j) not in FINAL_STATES)
        bad_results = self.unreadable_results(states)
        slope, points = self.memory_slope()
        with open(os.path.join(self.folder, "memory.csv"), "w") as f:  # kept with --keep
            f.write("seconds,daemon_start,seconds_since_start,vmrss_mib\n")
            f.writelines(f"{t:.0f},{n},{age:.0f},{rss:.1f}\n" for t, n, age, rss in self.memory)
        stopped = self.daemon.stop()
        time.sleep(2)
        left = orphans(self.programs, None)
        elapsed = time.monotonic() - self.begin
        say(f"ran {elapsed / 60:.1f} min: {sum(self.outcomes.values())} client runs, {len(self.job_ids)} jobs "
            f"accepted, {self.daemon.starts - 1} daemon restarts")
        for (kind, code), count in sorted(self.outcomes.items()):
            say(f"  {kind:15s} exit {code:3d}: {count}")
        say("  final states: " + ", ".join(f"{s} {n}" for s, n in sorted(collections.Counter(states.values()).items())))
        say("  kills: " + ", ".join(f"{k} {n}" for k, n in sorted(self.kills.items())))
        if points:
            rss = [r for _, r in points]
            say(f"  daemon VmRSS, last incarnation from its {60 if self.options.quick else 600} s on: "
                f"{len(points)} samples, {min(rss):.1f}-{max(rss):.1f} MiB, slope "
                + (f"{slope:+.2f} MiB/h" if slope is not None else "n/a"))
        all_rss = [r for *_, r in self.memory]
        if all_rss:
            say(f"  daemon VmRSS over the whole run: {min(all_rss):.1f}-{max(all_rss):.1f} MiB")
        checks = [
            ("jobs lost", len(lost), lost[:10]),
            ("unreadable results", len(bad_results), bad_results[:5]),
            ("wrong client outcomes", len(self.wrong), self.wrong[:5]),
            ("orphans after a daemon restart", sum(len(p) for _, p in self.orphans_seen), self.orphans_seen[:5]),
            ("orphans after the final stop", len(left), left[:10]),
            ("daemon did not stop on SIGTERM", 0 if stopped else 1, []),
        ]
        failed = False
        for name, count, detail in checks:
            say(f"  {name}: {count}" + (f"  {detail}" if count else ""))
            failed |= count != 0
        if not self.options.quick and self.outcomes and len(self.job_ids) == 0:
            failed = True
        say("PASS" if not failed else "FAIL")
        return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__.split("\n")[0])
    parser.add_argument("daemon", help="torchscand binary (bazel-bin/daemon/torchscand)")
    parser.add_argument("client", help="torchscan-client binary (bazel-bin/client/torchscan-client)")
    parser.add_argument("--minutes", type=float, default=60.0, help="how long to submit jobs (default 60)")
    parser.add_argument("--clients", type=int, default=3, help="client loops at once (default 3)")
    parser.add_argument("--seed", type=int, default=int(time.time()), help="random seed (default: the time)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--quick", action="store_true", help="1 minute, 2 clients: checks that the soak runs")
    options = parser.parse_args()
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # kill -USR1 PID: where each thread is
    if options.quick:
        options.minutes, options.clients = 1.0, 2
    for path in (options.daemon, options.client):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            print(f"{PROGRAM}: {path} is not an executable file; build it first (see this program's header)",
                  file=sys.stderr)
            return 2
    options.client = os.path.abspath(options.client)
    options.daemon = os.path.abspath(options.daemon)
    folder = tempfile.mkdtemp(prefix="torchscan-soak-")
    os.chmod(folder, 0o755)
    try:
        return Soak(options, folder).run()
    finally:
        if options.keep:
            say(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
