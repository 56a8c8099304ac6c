"""torchscand as a front for a real Slurm partition (DaemonConfig.slurm), end to end: munged,
slurmctld and slurmd on this machine (local_slurm.py), a real front daemon, the real client.

Usage: check_slurm_front.py [--xml FILE]   (run by bazel test, from the runfiles root; root)

  - measure and compare through the front: each job one Slurm job on the node, the report
    names the node, `jobs show` names the Slurm job and node
  - an AOTInductor package (.pt2) measured on the node
  - calibrate --node all (one job per node, each targeting its node): `info` shows that node's noise floor; the next report carries it;
    `history LABEL` lists the node's jobs
  - jobs watch follows a running job's phases; jobs cancel is scancel (Slurm says CANCELLED)
  - kill -9 of the front while Slurm runs a job: the restarted front records its result, and
    Slurm ran it once
  - the node set down mid-job: the job fails naming the node (not requeued)
  - slurmctld stopped: submit is refused naming Slurm and the fix; the front keeps serving
  - deploy/slurm/torchscan-job.sbatch inside a real allocation (sbatch --wait)
  - a job on cuda:N asks Slurm for N + 1 GPUs (--gres=gpu:N+1; the node counts 2, none
    drivable): cuda:1's runs on the node and fails there naming the device; cuda:2's is
    refused by Slurm, and the front says so
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from checklib import Checks, program, xml_flag
from local_slurm import LocalSlurm


class Front:
    """A torchscand front for `slurm`'s partition, restartable on its state folder."""

    def __init__(self, slurm, root):
        self.slurm, self.root = slurm, root
        self.state = os.path.join(root, "state")
        self.socket = "unix:" + os.path.join(root, "front.sock")
        self.process = None

    def start(self):
        log = open(os.path.join(self.root, "front.log"), "a")
        argv = [program("torchscand"), "--state-dir", self.state, "--listen", self.socket, "--worker-user", "root",
                "--slurm-partition", self.slurm.partition, "--slurm-time", "20",
                "--device", "cpu", "--device", "cuda:0", "--device", "cuda:1", "--device", "cuda:2"]
        self.process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.slurm.env)
        for _ in range(100):
            if self.process.poll() is not None:
                break
            if self.client("info").returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError("the front daemon did not answer: " + open(os.path.join(self.root, "front.log")).read()[-2000:])

    def kill(self, sig=signal.SIGKILL):
        self.process.send_signal(sig)
        self.process.wait(timeout=30)

    def client(self, *args, timeout=300):
        return subprocess.run([program("torchscan-client"), "--daemon", self.socket, *args], capture_output=True,
                              text=True, env=self.slurm.env, timeout=timeout)

    def background(self, *args):
        return subprocess.Popen([program("torchscan-client"), "--daemon", self.socket, *args], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, env=self.slurm.env)

    def job(self, job_id):
        return json.loads(self.client("--json", "jobs", "show", job_id).stdout)

    def wait_state(self, job_id, states, timeout_s=120):
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            job = self.job(job_id)
            if job.get("state") in states:
                return job
            time.sleep(0.2)
        raise RuntimeError(f"{job_id} never reached {states}: {job}")

    def newest_id(self):
        return json.loads(self.client("--json", "jobs", "list", "--limit", "1").stdout)["jobs"][0]["id"]


def slurm_jobs(slurm, name):
    out = slurm.run("squeue", "--noheader", "--states=all", "--name=" + name, "--format=%i|%T|%N").stdout
    return [line.split("|") for line in out.split()]


def check_measure(front, out):
    run = front.client("measure", "--label", "slurm-linear", "--output", out)
    if run.returncode != 0:
        return f"exit {run.returncode}: {run.stderr[-800:]}"
    report = json.load(open(os.path.join(out, "report.json")))
    if report["environment"]["hostname"].split(".")[0] != front.slurm.node:
        return f"the report names {report['environment']['hostname']}, not node {front.slurm.node}"
    job_id = front.newest_id()
    job = front.job(job_id)
    if job.get("node") != front.slurm.node or not job.get("slurm_job_id"):
        return f"the record lacks its node or Slurm job id: {job}"
    if f"Slurm job {job['slurm_job_id']} on node {front.slurm.node}" not in front.client("jobs", "show", job_id).stdout:
        return "jobs show does not name the Slurm job and node"
    states = slurm_jobs(front.slurm, "torchscan-" + job_id)
    if [s[1] for s in states] != ["COMPLETED"]:
        return f"Slurm shows {states} for it, not one COMPLETED job"
    return None


def check_compare(front, out):
    run = front.client("example", "--output", out)
    if run.returncode != 0:
        return f"exit {run.returncode}: {run.stderr[-800:]}"
    comparison = json.load(open(os.path.join(out, "comparison.json")))
    hosts = {comparison[side]["environment"]["hostname"] for side in ("before", "after")}
    if hosts != {front.slurm.node}:
        return f"the two runs ran on {hosts}, not both on {front.slurm.node}"
    if len(slurm_jobs(front.slurm, "torchscan-" + front.newest_id())) != 1:
        return "the compare was not one Slurm job"
    return None


def check_package(front, out):
    """An AOTInductor package (issue 42), compiled here by the project environment's torch,
    measured on the node: uploaded with the job, unpacked in the node job's /tmp."""
    python = os.path.join(os.environ.get("TORCHSCAN_VENV", "/opt/torchscan/venv"), "bin", "python")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "linear.pt2")
    compile_one = ("import sys, torch; m = torch.nn.Linear(64, 32).eval(); torch._inductor.aoti_compile_and_package("
                   "torch.export.export(m, (torch.randn(8, 64),)), package_path=sys.argv[1])")
    made = subprocess.run([python, "-c", compile_one, path], capture_output=True, text=True, timeout=600)
    if made.returncode != 0:
        return f"compiling a package with {python}: {made.stderr[-800:]}"
    run = front.client("measure", "--torchscript", path, "--input", "8x64", "--min-run-time", "0.05", "--output",
                       os.path.join(out, "result"))
    if run.returncode != 0:
        return f"exit {run.returncode}: {run.stderr[-800:]}"
    report = json.load(open(os.path.join(out, "result", "report.json")))
    if report["workload"].get("model") != "aot_inductor":
        return f"the report's workload is {report['workload']}, not the package"
    if report["environment"]["hostname"].split(".")[0] != front.slurm.node:
        return f"the report names {report['environment']['hostname']}, not node {front.slurm.node}"
    return None


def check_calibrate(front, out):
    node = front.slurm.node
    run = front.client("calibrate", "--node", "all", "--pairs", "2", "--rounds", "2", "--min-run-time", "0.05",
                       "--output", out)
    if run.returncode != 0:
        return f"calibrate exit {run.returncode}: {run.stderr[-800:]}"
    if not os.path.exists(os.path.join(out, node, "calibration.json")):
        return f"calibrate --node all wrote no {node}/calibration.json: {os.listdir(out)}"
    job = front.job(front.newest_id())
    if job["spec"].get("node") != node or job.get("node") != node:
        return f"the calibration did not target node {node}: spec.node {job['spec'].get('node')}, ran on {job.get('node')}"
    info = json.loads(front.client("--json", "info").stdout)
    nodes = {n["name"]: n for n in info.get("nodes", [])}
    if "noise_floor" not in nodes.get(node, {}):
        return f"info shows no noise floor for {node}: {nodes}"
    text = front.client("info").stdout
    if f"node      {node}" not in text or "no noise floor yet" in text.split(f"node      {node}")[1].split("\n")[0]:
        return f"info's text lacks the node's noise floor:\n{text}"
    run = front.client("measure", "--label", "slurm-linear", "--output", out + "-after")
    report = json.load(open(os.path.join(out + "-after", "report.json")))
    if run.returncode != 0 or "noise_floor" not in report:
        return f"the next report carries no noise floor (exit {run.returncode})"
    history = front.client("history", "slurm-linear", "--limit", "10")
    if history.returncode != 0 or history.stdout.count("succeeded") < 2 and "slurm-linear" not in history.stdout:
        return f"history exit {history.returncode}: {history.stdout[-600:]} {history.stderr[-400:]}"
    return None


def check_watch_and_cancel(front, _):
    waiting = front.background("measure", "--min-run-time", "60", "--output", os.path.join(front.root, "cancelled"))
    time.sleep(1)
    job_id = front.newest_id()
    front.wait_state(job_id, ["running"])
    watch = front.background("jobs", "watch", job_id)
    for _ in range(200):
        if front.job(job_id).get("phase", "").startswith("timing"):
            break
        time.sleep(0.2)
    cancel = front.client("jobs", "cancel", job_id)
    job = front.wait_state(job_id, ["cancelled", "failed", "succeeded"])
    watched = watch.communicate(timeout=60)[0]
    waiting.communicate(timeout=60)
    if cancel.returncode != 0 or job["state"] != "cancelled" or "scancel" not in job.get("error", ""):
        return f"cancel exit {cancel.returncode} {cancel.stderr[-400:]}; job {job['state']}: {job.get('error')}"
    if "timing measurement" not in watched:
        return f"jobs watch did not show the timing phase:\n{watched[-800:]}"
    states = [s[1] for s in slurm_jobs(front.slurm, "torchscan-" + job_id)]
    return None if states == ["CANCELLED"] else f"Slurm shows {states}, not CANCELLED"


def check_kill_front(front, _):
    waiting = front.background("measure", "--min-run-time", "8", "--output", os.path.join(front.root, "survivor"))
    time.sleep(1)
    job_id = front.newest_id()
    front.wait_state(job_id, ["running"])
    front.kill(signal.SIGKILL)
    waiting.communicate(timeout=60)
    if [s[1] for s in slurm_jobs(front.slurm, "torchscan-" + job_id)] != ["RUNNING"]:
        return "the Slurm job did not run on after the front was killed"
    front.start()
    job = front.wait_state(job_id, ["succeeded", "failed", "cancelled", "interrupted"], 120)
    if job["state"] != "succeeded":
        return f"after the restart the job is {job['state']}: {job.get('error')}"
    fetched = front.client("jobs", "fetch", job_id, "--output", os.path.join(front.root, "survivor-fetched"))
    if fetched.returncode != 0:
        return f"fetch after the restart: {fetched.stderr[-400:]}"
    runs = slurm_jobs(front.slurm, "torchscan-" + job_id)
    return None if len(runs) == 1 else f"Slurm ran it {len(runs)} times: {runs}"


def check_node_down(front, _):
    waiting = front.background("measure", "--min-run-time", "60", "--output", os.path.join(front.root, "node-down"))
    time.sleep(1)
    job_id = front.newest_id()
    front.wait_state(job_id, ["running"])
    time.sleep(1)
    front.slurm.set_node_state("down", "torchscan-test-maintenance")
    try:
        job = front.wait_state(job_id, ["succeeded", "failed", "cancelled"], 90)
    finally:
        front.slurm.set_node_state("resume")
        waiting.communicate(timeout=60)
    error = job.get("error", "")
    if job["state"] != "failed" or front.slurm.node not in error or "went down" not in error:
        return f"job {job['state']}: {error}"
    front.slurm.wait_for(lambda: front.slurm.node_state() == "idle", 60, "the node to be idle again")
    return None


def check_controller_down(front, _):
    front.slurm.stop_controller()
    try:
        run = front.client("measure", "--output", os.path.join(front.root, "refused"), timeout=120)
        listed = front.client("jobs", "list")
    finally:
        front.slurm.start_controller()
    if run.returncode == 0 or "Slurm" not in run.stderr or "scontrol ping" not in run.stderr:
        return f"exit {run.returncode}: {run.stderr[-600:]}"
    if "no daemon answers" in run.stderr:
        return "the refusal blames the daemon, not Slurm: " + run.stderr[-400:]
    if listed.returncode != 0:
        return f"jobs list failed while Slurm was down: {listed.stderr[-400:]}"
    return None


def check_batch_script(front, _):
    out = os.path.join(front.root, "batch")
    bin_dir = os.path.join(front.root, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    for name in ("torchscan-worker", "torchscan_rss_child", "torchscan-client"):
        os.symlink(program(name), os.path.join(bin_dir, name))
    env = dict(front.slurm.env, TORCHSCAN_BIN=bin_dir)
    run = subprocess.run(["sbatch", "--wait", "--partition=" + front.slurm.partition,
                          "--output=" + os.path.join(front.root, "batch-%j.out"),
                          os.path.abspath("deploy/slurm/torchscan-job.sbatch"),
                          os.path.abspath("deploy/slurm/linear-job.json"), out],
                         capture_output=True, text=True, env=env, timeout=300)
    if run.returncode != 0:
        return f"sbatch --wait exit {run.returncode}: {run.stdout} {run.stderr}"
    node = open(os.path.join(out, "node.txt")).read()
    if "slurm_job_id: none" in node or "srun --exclusive" not in node:
        return f"it did not run inside the allocation through srun:\n{node}"
    report = json.load(open(os.path.join(out, "report.json")))
    return None if report["timing"]["blocks"] else "report.json has no timing blocks"


def check_gpu_gres(front, out):
    run = front.client("measure", "--device", "cuda:1", "--output", out)
    job_id = front.newest_id()
    job = front.wait_state(job_id, ["failed", "succeeded"])
    if run.returncode == 0 or job["state"] != "failed" or "cuda:1" not in job.get("error", ""):
        return f"cuda:1 on a node without a GPU driver: exit {run.returncode}, {job['state']}: {job.get('error')}"
    shown = front.slurm.run("scontrol", "show", "job", str(job.get("slurm_job_id", ""))).stdout
    if "gpu:2" not in shown:
        return f"the Slurm job of cuda:1 did not ask for 2 GPUs:\n{shown[-1200:]}"
    if front.job(job_id).get("node") != front.slurm.node:
        return "the cuda:1 job did not run on the node"
    run = front.client("measure", "--device", "cuda:2", "--output", out + "-3")
    job = front.job(front.newest_id())
    if run.returncode == 0 or job["state"] != "failed" or "Slurm" not in job.get("error", ""):
        return f"cuda:2 (3 GPUs of a node with 2): exit {run.returncode}, {job['state']}: {job.get('error')}"
    return None


def main(argv):
    xml = xml_flag(argv)
    checks = Checks("slurm_front")
    root = tempfile.mkdtemp(prefix="tsf.", dir="/tmp")  # unix socket paths must stay short
    os.chmod(root, 0o755)
    slurm = LocalSlurm(os.path.join(root, "slurm"), gpus=2)
    try:
        checks.run("a local Slurm cluster starts (munged, slurmctld, slurmd)", lambda: slurm.start() and None)
        front = Front(slurm, root)
        checks.run("the front daemon starts on the partition", front.start)
        for name, fn in [
            ("measure through Slurm names its node", check_measure),
            ("compare runs both sides in one Slurm job on one node", check_compare),
            ("an AOTInductor package runs on the node", check_package),
            ("calibrate --node all gives each node its noise floor (info, reports, history)", check_calibrate),
            ("jobs watch follows a running job; jobs cancel is scancel", check_watch_and_cancel),
            ("kill -9 of the front mid-job loses nothing and runs nothing twice", check_kill_front),
            ("a node set down mid-job fails the job naming the node", check_node_down),
            ("slurmctld down: submit refused naming Slurm; the front keeps serving", check_controller_down),
            ("the batch script runs inside a real allocation", check_batch_script),
            ("a GPU job asks Slurm for its GPUs (GRES)", check_gpu_gres),
        ]:
            checks.run(name, fn, front, os.path.join(root, name.split()[0]))
    finally:
        try:
            front.kill(signal.SIGTERM)
        except Exception:
            pass
        slurm.stop()
    code = checks.finish(xml)
    if code == 0:
        shutil.rmtree(root, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
