"""A real Slurm cluster of one node on this machine, for tests and benchmarks.

    with LocalSlurm(folder) as slurm:      # its own munged, slurmctld and slurmd
        env = slurm.env                     # SLURM_CONF for sbatch, squeue, torchscand...
        slurm.set_node_state("down", "test")

Each cluster has its own slurm.conf, ports, state and spool folders under `folder`, and its own
munged (own key and socket, slurm.conf AuthInfo=socket=...), so that tests run side by side and
none depends on a daemon another test started: Bazel kills what a finished test left running, and
a shared munged started by one test died under the next one's cluster (CI, stop 46).
Needs root (slurmd) and Debian's slurm-wlm and munge (scripts/setup.sh installs them).
Design notes: ProctrackType=proctrack/linuxproc and TaskPlugin=task/none need no systemd or
cgroups; the partition gives each job a whole node (OverSubscribe=EXCLUSIVE). `gpus=N` (at most 5)
gives the node N GPUs as Slurm counts them, for the front's GRES requests: GresTypes=gpu and one
gres.conf line per GPU whose File is a harmless character device (/dev/null, /dev/zero ...;
Slurm 22.05's gres/gpu counts no GPU without a File, and task/none binds no device), so Slurm
schedules them and sets CUDA_VISIBLE_DEVICES, and nothing on the node drives them.
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Munged:
    """A munged of one cluster: its own key, socket, pid, seed and log in a short folder under /tmp
    that every user can traverse (munged refuses a socket in a folder that is not)."""

    def __init__(self):
        for tool in ("munged", "mungekey", "munge", "unmunge"):
            if not shutil.which(tool):
                raise RuntimeError(f"{tool} is not installed: apt-get install munge slurm-wlm (scripts/setup.sh)")
        self.folder = tempfile.mkdtemp(prefix="tsm.", dir="/tmp")  # unix socket paths <= 107 bytes
        os.chmod(self.folder, 0o755)
        self.socket = os.path.join(self.folder, "munge.socket")
        self.proc = None

    def start(self):
        key = os.path.join(self.folder, "munge.key")
        subprocess.run(["mungekey", "--create", f"--keyfile={key}"], check=True, capture_output=True)
        log = open(os.path.join(self.folder, "munged.out"), "ab")
        self.proc = subprocess.Popen(
            ["munged", "--foreground", f"--socket={self.socket}", f"--key-file={key}",
             f"--pid-file={self.folder}/munged.pid", f"--seed-file={self.folder}/munged.seed",
             f"--log-file={self.folder}/munged.log", "--num-threads=10"], stdout=log, stderr=log)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.works():
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        out = open(os.path.join(self.folder, "munged.out")).read()[-2000:]
        raise RuntimeError(f"munged did not start on {self.socket}:\n{out}")

    def works(self):
        cred = subprocess.run(["munge", "-n", "-S", self.socket], capture_output=True)
        return cred.returncode == 0 and subprocess.run(["unmunge", "-S", self.socket], input=cred.stdout,
                                                       capture_output=True).returncode == 0

    def stop(self):
        _stop(self.proc)
        self.proc = None
        shutil.rmtree(self.folder, ignore_errors=True)


class LocalSlurm:
    def __init__(self, folder, partition="bench", cpus=None, gpus=0):
        self.folder = os.path.abspath(folder)
        self.partition = partition
        self.gpus = gpus
        self.node = socket.gethostname().split(".")[0]
        self.cpus = cpus or os.cpu_count()
        self.conf = os.path.join(self.folder, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.ctld = None
        self.slurmd = None
        self.munged = None

    def write_conf(self):
        os.makedirs(self.folder, exist_ok=True)
        for sub in ("state", "spool", "log"):
            os.makedirs(os.path.join(self.folder, sub), exist_ok=True)
        memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20) // 2
        f = self.folder
        text = f"""ClusterName=ts{os.getpid()}
SlurmctldHost={self.node}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={self.munged.socket}
StateSaveLocation={f}/state
SlurmdSpoolDir={f}/spool
SlurmctldPidFile={f}/slurmctld.pid
SlurmdPidFile={f}/slurmd.pid
SlurmctldLogFile={f}/log/slurmctld.log
SlurmdLogFile={f}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=1
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
MinJobAge=600
SlurmctldTimeout=10
SlurmdTimeout=10
MessageTimeout=5
{"GresTypes=gpu" if self.gpus else ""}
NodeName={self.node} NodeAddr=127.0.0.1 CPUs={self.cpus} RealMemory={memory_mb} State=UNKNOWN{f" Gres=gpu:{self.gpus}" if self.gpus else ""}
PartitionName={self.partition} Nodes={self.node} Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE
"""
        with open(self.conf, "w") as out:
            out.write(text)
        if self.gpus:  # slurmd reads gres.conf beside slurm.conf
            files = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"][:self.gpus]
            with open(os.path.join(self.folder, "gres.conf"), "w") as out:
                out.writelines(f"Name=gpu File={f}\n" for f in files)

    def start(self):
        self.munged = Munged().start()
        self.write_conf()
        self.start_controller()
        log = open(os.path.join(self.folder, "log", "slurmd.out"), "ab")
        self.slurmd = subprocess.Popen(["slurmd", "-D", "-f", self.conf], env=self.env, stdout=log, stderr=log)
        self.wait_for(lambda: self.node_state() in ("idle", "mixed", "allocated"), 60, "the node to be idle")
        return self

    def start_controller(self):
        log = open(os.path.join(self.folder, "log", "slurmctld.out"), "ab")
        self.ctld = subprocess.Popen(["slurmctld", "-D", "-i", "-f", self.conf], env=self.env, stdout=log, stderr=log)
        self.wait_for(lambda: self.run("scontrol", "ping").returncode == 0 and "UP" in self.run("scontrol", "ping").stdout,
                      30, "slurmctld to answer")

    def stop_controller(self):
        _stop(self.ctld)
        self.ctld = None

    def stop(self):
        _stop(self.slurmd)
        self.stop_controller()
        self.slurmd = None
        if self.munged:
            self.munged.stop()
            self.munged = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def run(self, *args, timeout=30):
        return subprocess.run(list(args), capture_output=True, text=True, env=self.env, timeout=timeout)

    def node_state(self):
        r = self.run("sinfo", "-h", "-n", self.node, "-o", "%T")
        return r.stdout.strip().rstrip("*~#!%$@^-") if r.returncode == 0 else ""

    def set_node_state(self, state, reason=None):
        args = ["scontrol", "update", f"nodename={self.node}", f"state={state}"]
        if reason:
            args.append(f"reason={reason}")
        r = self.run(*args)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: {r.stderr.strip()}")

    def wait_for(self, ready, timeout_s, what):
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            if ready():
                return
            time.sleep(0.2)
        logs = ""
        for name in ("slurmctld.log", "slurmd.log"):
            path = os.path.join(self.folder, "log", name)
            if os.path.exists(path):
                logs += f"\n--- {name} ---\n" + "".join(open(path).readlines()[-15:])
        raise RuntimeError(f"timed out after {timeout_s} s waiting for {what}{logs}")


def _stop(proc):
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
