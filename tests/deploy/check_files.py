"""The non-Kubernetes deploy files, checked with the tools that read them for real.

Usage: check_files.py [--xml FILE]   (run by bazel test, from the runfiles root)

  systemd     `systemd-analyze verify` of the unit alone and with its drop-in prints nothing
              (it only warns about unknown keys and bad values, so any output fails);
              `systemd-analyze security --offline` rates it at most 2.2 (2.0 before each job had a
              memory cgroup and a PID namespace of its own: Delegate=yes with a writable
              /sys/fs/cgroup, 0.3, and RestrictNamespaces= with pid, 0.1); systemd-sysusers
              creates its users in a scratch root, and the unit's User=, SupplementaryGroups=,
              RuntimeDirectory= and StateDirectory= agree with them and with torchscand.json;
              the job sandbox: torchscand.json asks for it, the unit's RestrictNamespaces= and
              SystemCallFilter= (groups expanded by `systemd-analyze syscall-filter`) allow
              what it calls, and the real torchscand, as an unprivileged user with
              no_new_privs (as the unit runs it), makes it and starts
  scripts     `bash -n` and ShellCheck on every shell script deploy/ and install use
  container   every COPY source exists, every repository script a RUN starts is executable,
              every stage is Debian 12, the user is numeric and not root, the programs copied
              into the final stage are the ones scripts/install.sh installs, and
              runtime-packages.sh on the real programs names LibTorch's, gRPC's and the
              chosen BLAS's packages
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from checklib import (PROGRAMS, Checks, exec_argv, program, read_containerfile, read_text, read_unit, unit_values,
                      xml_flag)

UNIT = "deploy/systemd/torchscand.service"
DROPIN = "deploy/systemd/tcp-tls.conf"
SCRIPTS = ["deploy/slurm/torchscan-job.sbatch", "deploy/ci/torchscan-ci.sh", "scripts/install.sh",
           "deploy/container/runtime-packages.sh", "scripts/setup.sh", "deploy/manual/torchscand-start.sh"]
CONTAINERFILE = "deploy/container/Containerfile"


def tool(name):
    path = shutil.which(name)
    if not path:
        raise ValueError(f"{name} is not installed: run scripts/setup.sh")
    return path


def unit_copy(folder, torchscand, with_dropin):
    """The unit (and drop-in) in `folder`, its /usr/local/bin/torchscand replaced by the real one
    so that verify can check the program exists and is executable."""
    for source, target in ((UNIT, "torchscand.service"), (DROPIN, "torchscand.service.d/tcp-tls.conf")):
        if source == DROPIN and not with_dropin:
            continue
        os.makedirs(os.path.dirname(os.path.join(folder, target)), exist_ok=True)
        with open(os.path.join(folder, target), "w") as f:
            f.write(read_text(source).replace("/usr/local/bin/torchscand", torchscand))
    return os.path.join(folder, "torchscand.service")


def check_verify(torchscand, with_dropin):
    with tempfile.TemporaryDirectory() as folder:
        unit = unit_copy(folder, torchscand, with_dropin)
        run = subprocess.run([tool("systemd-analyze"), "verify", unit], capture_output=True, text=True, timeout=120)
        output = (run.stdout + run.stderr).strip()
        if run.returncode != 0 or output:
            return f"systemd-analyze verify exited {run.returncode}: {output}"
    return None


def check_security(torchscand):
    with tempfile.TemporaryDirectory() as folder:
        unit = unit_copy(folder, torchscand, False)
        run = subprocess.run([tool("systemd-analyze"), "security", "--offline=true", "--threshold=22", unit],
                             capture_output=True, text=True, timeout=120)
        if run.returncode != 0:
            rating = [l for l in run.stdout.splitlines() if "Overall exposure" in l]
            return f"exposure above 2.2: {rating or run.stderr.strip()}"
    return None


SANDBOX_NAMESPACES = {"user", "pid", "mnt", "net", "ipc", "uts"}  # daemon/job_sandbox.h, as a non-root daemon
SANDBOX_CALLS = {"unshare", "mount", "umount2", "pivot_root", "mount_setattr"}  # process/sandbox.cc


def syscalls_of(entries):
    """The system calls a SystemCallFilter= allow list names, its @groups expanded."""
    calls = set()
    for entry in entries:
        if entry.startswith("@"):
            run = subprocess.run([tool("systemd-analyze"), "syscall-filter", entry], capture_output=True, text=True,
                                 timeout=60, check=True)
            calls |= {line.strip() for line in run.stdout.splitlines()[1:] if line.strip() and
                      not line.strip().startswith("#")}
        else:
            calls.add(entry)
    return calls


def started_unprivileged(torchscand):
    """torchscand (with its worker and RSS child, copied where nobody can read them) as nobody
    with no_new_privs: None when it made the sandbox and listened, else its output."""
    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0o755)
        for name in ("torchscand", "torchscan-worker", "torchscan_rss_child"):
            shutil.copy2(program(name) if name != "torchscand" else torchscand, os.path.join(folder, name))
        state = os.path.join(folder, "state")
        os.mkdir(state)
        # As root, become nobody the way the unit's user is made; otherwise already unprivileged.
        drop = []
        if os.geteuid() == 0:
            shutil.chown(state, "nobody")
            drop = [tool("setpriv"), "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--no-new-privs"]
        argv = drop + [os.path.join(folder, "torchscand"), "--state-dir", state, "--listen",
                       f"unix:{state}/torchscand.sock", "--sandbox", "namespaces", "--no-spare-worker"]
        daemon = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        output = []
        for line in daemon.stdout:
            output.append(line)
            if "listening on" in line:
                break
        daemon.terminate()
        daemon.wait(timeout=30)
        text = "".join(output)
        if "jobs run sandboxed" in text and "listening on" in text:
            return None
        return text.strip()[-600:] or f"exited {daemon.returncode} saying nothing"


def check_job_sandbox(torchscand):
    config = json.loads(read_text("deploy/systemd/torchscand.json"))
    if config.get("sandbox") != "namespaces":
        return f"deploy/systemd/torchscand.json: sandbox is {config.get('sandbox')!r}, not \"namespaces\""
    unit = read_unit(UNIT)
    namespaces = set(" ".join(unit_values(unit, "Service", "RestrictNamespaces")).split())
    if not SANDBOX_NAMESPACES <= namespaces:
        return f"RestrictNamespaces= lacks {sorted(SANDBOX_NAMESPACES - namespaces)}, which the job sandbox creates"
    allowed = syscalls_of(" ".join(unit_values(unit, "Service", "SystemCallFilter")).split())
    if not SANDBOX_CALLS <= allowed:
        return f"SystemCallFilter= does not allow {sorted(SANDBOX_CALLS - allowed)}, which the job sandbox calls"
    failed = started_unprivileged(torchscand)
    return None if failed is None else f"torchscand as nobody with no_new_privs did not start sandboxed: {failed}"


def check_sysusers():
    with tempfile.TemporaryDirectory() as root:
        # Installed as deploy/README.md says, into a scratch root.
        os.makedirs(os.path.join(root, "etc/sysusers.d"))
        shutil.copyfile("deploy/systemd/torchscand.sysusers", os.path.join(root, "etc/sysusers.d/torchscand.conf"))
        run = subprocess.run([tool("systemd-sysusers"), f"--root={root}"],
                             capture_output=True, text=True, timeout=60)
        if run.returncode != 0:
            return f"systemd-sysusers failed: {run.stderr.strip()}"
        users = {l.split(":")[0]: l.split(":") for l in read_text(os.path.join(root, "etc/passwd")).splitlines()}
        groups = {l.split(":")[0]: l.split(":") for l in read_text(os.path.join(root, "etc/group")).splitlines()}
    unit = read_unit(UNIT)
    user, group = unit_values(unit, "Service", "User"), unit_values(unit, "Service", "Group")
    if user[-1:] != group[-1:] or not user or user[0] not in users or group[0] not in groups:
        return f"User={user} / Group={group} are not the user and group torchscand.sysusers creates"
    config = json.loads(read_text("deploy/systemd/torchscand.json"))
    supplementary = " ".join(unit_values(unit, "Service", "SupplementaryGroups")).split()
    socket_group = config.get("socket_group")
    if socket_group not in supplementary:
        return f"socket_group {socket_group!r} is not in SupplementaryGroups={supplementary}: the daemon could not chown its socket"
    if socket_group not in groups or user[0] not in groups[socket_group][3].split(","):
        return f"torchscand.sysusers does not create group {socket_group!r} with {user[0]} as a member"
    return None


def check_directories():
    unit = read_unit(UNIT)
    config = json.loads(read_text("deploy/systemd/torchscand.json"))
    runtime = "/run/" + unit_values(unit, "Service", "RuntimeDirectory")[-1] + "/"
    state = "/var/lib/" + unit_values(unit, "Service", "StateDirectory")[-1]
    sockets = [a[len("unix:"):] for a in config["listen"] if a.startswith("unix:")]
    if not sockets or not all(s.startswith(runtime) for s in sockets):
        return f"unix sockets {sockets} are not in the RuntimeDirectory {runtime}"
    if config["state_dir"] != state:
        return f"state_dir {config['state_dir']} is not the StateDirectory {state}"
    starts = unit_values(unit, "Service", "ExecStart")
    if not any(exec_argv(s)[0] == "/usr/local/bin/torchscand" for s in starts):
        return "ExecStart does not run /usr/local/bin/torchscand (where scripts/install.sh /usr/local puts it)"
    return None


def check_script(path):
    if not os.access(path, os.X_OK):
        return f"{path} is not executable (chmod +x)"
    run = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
    if run.returncode != 0:
        return f"bash -n: {run.stderr.strip()}"
    run = subprocess.run([tool("shellcheck"), "--shell=bash", path], capture_output=True, text=True)
    if run.returncode != 0:
        return f"shellcheck:\n{run.stdout.strip()}"
    return None


def installed_programs():
    """Names scripts/install.sh installs: the target names in its targets=(...) list."""
    block = re.search(r"targets=\(([^)]*)\)", read_text("scripts/install.sh"))
    if not block:
        raise ValueError("scripts/install.sh has no targets=(...) list")
    return sorted(t.split(":")[1] for t in block.group(1).split())


def checkout_root():
    """The source tree the Containerfile is built from: runfiles hold only declared files,
    but link to the checkout, where WORKSPACE, .bazelrc and the rest are."""
    real = os.path.realpath(CONTAINERFILE)
    if not real.endswith("/" + CONTAINERFILE):
        raise ValueError(f"cannot find the checkout from {real}")
    return real[:-len(CONTAINERFILE)]


def check_containerfile():
    instructions = read_containerfile(CONTAINERFILE)
    root = checkout_root()
    froms = [a for _, i, a in instructions if i == "FROM"]
    if not froms or not all(a.split()[0] == "debian:12" for a in froms):
        return f"every stage must start FROM debian:12: {froms}"
    final = max(n for n, i, _ in instructions if i == "FROM")
    for n, i, args in instructions:
        words = args.split()
        if i == "COPY" and not args.startswith("--from"):
            for source in words[:-1]:
                if not os.path.exists(os.path.join(root, source)):
                    return f"{CONTAINERFILE}:{n}: COPY source {source} does not exist in the repository"
        if i == "RUN":
            for word in re.findall(r"(?:^|[\s;&|])((?:scripts|deploy)/[\w./-]+)", args):
                if not os.access(os.path.join(root, word), os.X_OK):
                    return f"{CONTAINERFILE}:{n}: RUN starts {word}, which is not an executable file here"
    copied_folders = {args.split()[0].rstrip("/") for _, i, args in instructions
                      if i == "COPY" and not args.startswith("--from")}
    # Every Bazel package of the programs must be in the build stage: all but the tests',
    # the benchmarks' and deploy/'s own.
    packages = {name for name in os.listdir(root)
                if not os.path.islink(os.path.join(root, name))  # bazel-* output links
                and os.path.isfile(os.path.join(root, name, "BUILD.bazel"))}
    missing = sorted(packages - copied_folders - {"tests", "benchmarks", "deploy"})
    if missing:
        return f"{CONTAINERFILE}: the build stage does not COPY {', '.join(f + '/' for f in missing)}"
    users = [(n, a) for n, i, a in instructions if i == "USER" and n > final]
    if not users or not re.fullmatch(r"[1-9][0-9]*(:[0-9]+)?", users[-1][1]):
        return "the final stage needs USER UID[:GID], numeric and not 0 (runAsNonRoot checks numbers)"
    copied = set()
    for n, i, args in instructions:
        if i == "COPY" and n > final and args.startswith("--from"):
            copied |= {os.path.basename(w) for w in args.split()[1:-1] if w.startswith("/usr/local/bin/")}
    if sorted(copied) != installed_programs():
        return f"the final stage copies {sorted(copied)}, scripts/install.sh installs {installed_programs()}"
    entry = [a for n, i, a in instructions if i == "ENTRYPOINT" and n > final]
    if not entry or os.path.basename(json.loads(entry[-1])[0]) not in copied:
        return "the ENTRYPOINT program is not copied into the final stage"
    return None


def check_runtime_packages(programs):
    run = subprocess.run(["deploy/container/runtime-packages.sh"] + programs, capture_output=True, text=True,
                         timeout=300)
    if run.returncode != 0:
        return f"runtime-packages.sh exited {run.returncode}: {run.stderr.strip()}"
    packages = run.stdout.split()
    for pattern in (r"libgrpc\+\+[0-9.]+", r"libprotobuf[0-9]+", r"libc6"):
        if not any(re.fullmatch(pattern, p) for p in packages):
            return f"no package matching {pattern} in {packages}"
    if any(p.startswith("libtorch") or p.startswith("python3-torch") for p in packages):
        return f"Debian's LibTorch is named in {packages}: TorchScan links the project environment's"
    # LibTorch (libtorch_cpu, libc10) comes from the project environment, named on stderr.
    for library in ("libtorch_cpu.so", "libc10.so"):
        if not re.search(r"from the project environment, not a package: \S*/torch/lib/" + re.escape(library),
                         run.stderr):
            return f"{library} is not named as the project environment's: {run.stderr.strip()}"
    if "libtorch_cuda.so" in run.stderr:
        return f"a program links libtorch_cuda.so (CPU jobs must not load it): {run.stderr.strip()}"
    return None


def main(argv):
    xml_path = xml_flag(argv)
    binary = {name: program(name) for name in PROGRAMS}
    checks = Checks("deploy_files_test")
    checks.run("systemd: verify torchscand.service", check_verify, binary["torchscand"], False)
    checks.run("systemd: verify torchscand.service with tcp-tls.conf", check_verify, binary["torchscand"], True)
    checks.run("systemd: exposure rating at most 2.2", check_security, binary["torchscand"])
    checks.run("systemd: sysusers creates the unit's user and the socket group", check_sysusers)
    checks.run("systemd: socket and state folders are the unit's directories", check_directories)
    checks.run("systemd: the unit lets the unprivileged torchscand sandbox its jobs", check_job_sandbox,
               binary["torchscand"])
    for script in SCRIPTS:
        checks.run(f"{script}: bash -n and shellcheck", check_script, script)
    checks.run("Containerfile: sources, scripts, stages, user and programs", check_containerfile)
    checks.run("runtime-packages.sh: gRPC's packages, LibTorch from the project environment", check_runtime_packages,
               list(binary.values()))
    return checks.finish(xml_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
