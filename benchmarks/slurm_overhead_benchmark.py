#!/usr/bin/python3
"""What does the Slurm front cost a job (issue 28)? Submit -> first timed block through a real
Slurm partition against a resident torchscand, on the same machine, measured side by side.

  bazel build //benchmarks:slurm_overhead_benchmark //client:torchscan-client //daemon:torchscand
      //daemon:torchscan-node-job //worker:torchscan-worker && bazel-bin/benchmarks/slurm_overhead_benchmark
      bazel-bin/daemon/torchscand [--trials 5] [--quick]

Starts a one-node Slurm cluster here (tests/deploy/local_slurm.py: munged, slurmctld, slurmd;
root and Debian's slurm-wlm needed), a Slurm front (--slurm-partition) and a resident daemon
(its warm spare worker on, as installed), then alternates trials: `torchscan-client measure`
of the linear model on each: submit -> the timing phase's start as the daemon saw it (the job
record's timeline, whose time 0 is the submission; the first timed block follows within
milliseconds; a front sees a node's progress at its next half-second poll, as its users do),
and the client's start -> its exit with the result. Between trials it waits until the
resident daemon's spare is loaded again (its normal state between jobs). Prints each trial,
the medians and their ratio, and the Slurm jobs' own share (sbatch -> job start, from the
record's submitted_at/started_at). --quick: one trial each, to check that it runs.
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "deploy"))
from local_slurm import LocalSlurm  # noqa: E402


def start_daemon(torchscand, root, name, env, extra):
    sock = "unix:" + os.path.join(root, name + ".sock")
    log = open(os.path.join(root, name + ".log"), "w")
    argv = [torchscand, "--state-dir", os.path.join(root, name), "--listen", sock, "--worker-user", "root", *extra]
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
    return proc, sock


def client(path, sock, env, *args):
    return subprocess.run([path, "--daemon", sock, *args], capture_output=True, text=True, env=env, timeout=600)


def wait_ready(path, sock, env, spare, timeout_s=60):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        run = client(path, sock, env, "--json", "info")
        if run.returncode == 0 and (not spare or json.loads(run.stdout).get("spare_worker_ready")):
            return
        time.sleep(0.1)
    raise RuntimeError(f"{sock} not ready")


def trial(path, sock, env, out, min_run_time):
    """Seconds from the client's start to its exit, and the job id."""
    start = time.monotonic()
    run = subprocess.run([path, "--daemon", sock, "measure", "--min-run-time", str(min_run_time), "--output", out],
                         capture_output=True, text=True, env=env, timeout=600)
    total = time.monotonic() - start
    ids = [line[1:line.index("]")] for line in run.stderr.splitlines() if line.startswith("[job-")]
    if run.returncode != 0 or not ids:
        raise RuntimeError(f"measure on {sock} exit {run.returncode}: {run.stderr[-600:]}")
    return total, ids[0]


def timing_start(record):
    """When the daemon saw the job's timing phase begin, in seconds since its submission (its
    record's timeline starts there)."""
    for span in record["timeline"]["spans"]:
        if span["phase"].startswith("timing"):
            return span["start_s"]
    raise RuntimeError(f"job {record['id']} has no timing phase in its timeline")


def seconds_between(a, b):
    from datetime import datetime
    f = "%Y-%m-%dT%H:%M:%S.%f"
    return (datetime.strptime(b.rstrip("Z"), f) - datetime.strptime(a.rstrip("Z"), f)).total_seconds()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("torchscand")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    a = parser.parse_args()
    trials, min_run_time = (1, 0.05) if a.quick else (a.trials, 0.5)
    torchscand = os.path.abspath(a.torchscand)
    path = os.path.join(os.path.dirname(torchscand), "..", "client", "torchscan-client")
    root = tempfile.mkdtemp(prefix="tsb.", dir="/tmp")
    slurm = LocalSlurm(os.path.join(root, "slurm")).start()
    env = slurm.env
    daemons = []
    try:
        resident = start_daemon(torchscand, root, "resident", env, [])
        front = start_daemon(torchscand, root, "front", env, ["--slurm-partition", slurm.partition])
        daemons = [resident[0], front[0]]
        wait_ready(path, front[1], env, spare=False)
        figures = {"resident": [], "slurm": []}
        for i in range(trials):
            order = [("resident", resident[1]), ("slurm", front[1])]
            for name, sock in order if i % 2 == 0 else reversed(order):
                if name == "resident":
                    wait_ready(path, sock, env, spare=True)
                total, job = trial(path, sock, env, os.path.join(root, f"{name}-{i}"), min_run_time)
                record = json.loads(client(path, sock, env, "--json", "jobs", "show", job).stdout)
                first = timing_start(record)
                queue = seconds_between(record["submitted_at"], record["started_at"])
                figures[name].append((first, total, queue))
                print(f"trial {i + 1} {name:8s}: timing starts {first:6.2f} s, job done {total:6.2f} s, "
                      f"submitted -> started {queue:5.2f} s", flush=True)
        med = {n: [statistics.median(x[k] for x in f) for k in range(3)] for n, f in figures.items()}
        print(f"\nmedian of {trials}: submit -> timing starts     resident {med['resident'][0]:.2f} s, "
              f"Slurm {med['slurm'][0]:.2f} s: {med['slurm'][0] / med['resident'][0]:.2f}x "
              f"(+{med['slurm'][0] - med['resident'][0]:.2f} s)")
        print(f"               client start -> result      resident {med['resident'][1]:.2f} s, "
              f"Slurm {med['slurm'][1]:.2f} s")
        print(f"               of which submitted -> started  resident {med['resident'][2]:.2f} s, "
              f"Slurm {med['slurm'][2]:.2f} s (sbatch, Slurm's scheduling, the step's start)")
    finally:
        for proc in daemons:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
        slurm.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
