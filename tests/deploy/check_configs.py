"""Every place in deploy/ that starts torchscand passes the real torchscand --check-config.

Usage: check_configs.py [--xml FILE]   (run by bazel test, from the runfiles root)

The places: the systemd unit's ExecStart (alone, and with the TCP drop-in tcp-tls.conf),
the Containerfile's ENTRYPOINT, and each Kubernetes DaemonSet's command + args. For each
one the test finds the configuration file that command line reads where it is deployed:
  systemd     the `install ... SRC DEST` lines in the unit's header say where SRC goes
  container   the COPY instruction whose destination is the --config path
  Kubernetes  the ConfigMap key mounted (volumeMounts + configMap items) at the --config path
Only machine-specific things are changed: every absolute path moves under a throw-away root
(binaries in /usr/local/bin become the ones built here), socket_group becomes this test's
own group, and the files the configuration names are created there (a TLS certificate and
key made by openssl, a token file with mode 0600). Then `torchscand ARGS --check-config`
must exit 0 and its effective configuration must hold every value the deploy file set.
A probe per place with one unknown flag must exit 2, so the check is known to be able to fail.
"""

import grp
import json
import os
import shutil
import subprocess
import sys
import tempfile

from checklib import (Checks, daemonset_config, exec_argv, exec_form, load_yaml_documents, program, read_containerfile,
                      read_text, read_unit, unit_values, xml_flag)

CREDENTIALS_DIR = "/run/credentials/torchscand.service"  # systemd's %d for this unit
TOKEN_LINE = "ci-admin 0123456789abcdef0123456789abcdef admin\n"


class Place:
    """One deploy-time torchscand command line and the config files it reads, by deployed path."""

    def __init__(self, name, argv, configs):
        self.name = name
        self.argv = argv          # as deployed, argv[0] the installed torchscand
        self.configs = configs    # deployed path -> the deploy file's text


def flag_value(argv, flag):
    return argv[argv.index(flag) + 1] if flag in argv[:-1] else None


def systemd_places(root):
    unit_path = os.path.join(root, "deploy/systemd/torchscand.service")
    installed = {}  # deployed path -> repository file, from the unit's "#   install ... SRC DEST" lines
    for line in read_text(unit_path).splitlines():
        words = line.lstrip("#").split()
        if words[:1] == ["install"] and len(words) >= 3 and words[-2].startswith("deploy/"):
            installed[words[-1]] = words[-2]
    unit = read_unit(unit_path)
    dropin = read_unit(os.path.join(root, "deploy/systemd/tcp-tls.conf"))
    places = []
    for name, units in (("systemd unit", [unit]), ("systemd unit + tcp-tls.conf", [unit, dropin])):
        starts, credentials = [], {}
        for u in units:
            for value in [v for k, v in u.get("Service", []) if k == "ExecStart"]:
                starts = [] if value == "" else starts + [value]
            for value in unit_values(u, "Service", "LoadCredential"):
                credentials[value.split(":", 1)[0]] = value.split(":", 1)[1]
        if len(starts) != 1:
            raise ValueError(f"{name}: expected one ExecStart after drop-ins, found {len(starts)}")
        argv = [a.replace("%d", CREDENTIALS_DIR) for a in exec_argv(starts[0])]
        for a in argv:  # every credential the command line reads is loaded by the unit
            if a.startswith(CREDENTIALS_DIR + "/") and a.split("/")[-1] not in credentials:
                raise ValueError(f"{name}: {a} is used but no LoadCredential= names {a.split('/')[-1]}")
        config = flag_value(argv, "--config")
        if config not in installed:
            raise ValueError(f"{name}: --config {config} is not installed by any 'install ... SRC {config}' line "
                             "in the unit's header")
        places.append(Place(name, argv, {config: read_text(os.path.join(root, installed[config]))}))
    return places


def container_place(root):
    path = os.path.join(root, "deploy/container/Containerfile")
    instructions = read_containerfile(path)
    entry = [(n, a) for n, i, a in instructions if i == "ENTRYPOINT"]
    if len(entry) != 1:
        raise ValueError(f"{path}: expected one ENTRYPOINT, found {len(entry)}")
    argv = exec_form(entry[0][1], f"{path}:{entry[0][0]}")
    config = flag_value(argv, "--config")
    stage_start = max(n for n, i, _ in instructions if i == "FROM")  # the final stage
    for n, i, args in instructions:
        words = args.split()
        if i == "COPY" and n > stage_start and not args.startswith("--from") and words[-1] == config:
            return Place("Containerfile ENTRYPOINT", argv, {config: read_text(os.path.join(root, words[0]))})
    raise ValueError(f"{path}: no COPY in the final stage puts a file at --config {config}")


def kubernetes_places(root):
    configmaps = {d["metadata"]["name"]: d for d in
                  load_yaml_documents(os.path.join(root, "deploy/kubernetes/configmap.yaml")) if d["kind"] == "ConfigMap"}
    places = []
    for file in ("daemonset.yaml", "daemonset-gpu.yaml"):
        for ds in load_yaml_documents(os.path.join(root, "deploy/kubernetes", file)):
            c = ds["spec"]["template"]["spec"]["containers"][0]
            config, text = daemonset_config(ds, configmaps)
            argv = list(c.get("command", [])) + list(c.get("args", []))
            places.append(Place(f"{file} {ds['metadata']['name']}/{c['name']}", argv, {config: text}))
    return places


class Sandbox:
    """A throw-away root: deployed absolute paths move under it."""

    def __init__(self, torchscand, keys):
        self.root = tempfile.mkdtemp(prefix="tsd.", dir="/tmp")  # short: unix socket paths <= 107 bytes
        self.torchscand = torchscand
        self.keys = keys  # {"cert": path, "key": path}

    def path(self, deployed):
        if deployed.startswith("/usr/local/bin/"):
            if os.path.basename(deployed) != "torchscand":
                raise ValueError(f"{deployed}: only torchscand is started from /usr/local/bin here")
            return self.torchscand
        return self.root + deployed

    def value(self, v):
        if isinstance(v, str) and v.startswith("unix:/"):
            return "unix:" + self.path(v[len("unix:"):])
        if isinstance(v, str) and v.startswith("/"):
            return self.path(v)
        if isinstance(v, dict):
            return {k: self.value(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        return v

    def provide(self, path, kind):
        """Creates the file a configuration names: a PEM certificate or key, or a token file."""
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if kind == "tokens":
            with open(path, "w") as f:
                f.write("# throw-away token of the deploy test\n" + TOKEN_LINE)
        else:
            shutil.copyfile(self.keys[kind], path)
        os.chmod(path, 0o600)


FILE_FIELDS = {("tls", "cert_file"): "cert", ("tls", "key_file"): "key", ("tls", "client_ca_file"): "cert",
               ("token_file",): "tokens"}
LIST_FLAGS = {"--listen": "listen", "--device": "devices"}
FLAG_FILES = {"--tls-cert": "cert", "--tls-key": "key", "--tls-client-ca": "cert", "--token-file": "tokens"}


def same(deployed, effective):
    """Whether the effective configuration holds a deployed value (proto JSON prints int64 as text)."""
    if isinstance(deployed, dict):
        return isinstance(effective, dict) and all(same(v, effective.get(k)) for k, v in deployed.items())
    if isinstance(deployed, (int, float)) and not isinstance(deployed, bool):
        try:
            return float(effective) == float(deployed)
        except (TypeError, ValueError):
            return False
    return deployed == effective


def check_place(place, sandbox):
    group = grp.getgrgid(os.getgid()).gr_name
    argv = [sandbox.value(a) for a in place.argv]
    for i, a in enumerate(place.argv[:-1]):
        if a in FLAG_FILES:
            sandbox.provide(argv[i + 1], FLAG_FILES[a])
    expected = {}
    for deployed_path, text in place.configs.items():
        config = sandbox.value(json.loads(text))
        if "socket_group" in config:
            config["socket_group"] = group
        for fields, kind in FILE_FIELDS.items():
            node = config
            for f in fields[:-1]:
                node = node.get(f, {})
            if node.get(fields[-1]):
                sandbox.provide(node[fields[-1]], kind)
        target = sandbox.path(deployed_path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as f:
            json.dump(config, f)
        expected = config
    run = subprocess.run(argv + ["--check-config"], capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        return f"torchscand {' '.join(argv[1:])} --check-config exited {run.returncode}: {run.stderr.strip()}"
    effective = json.loads(run.stdout)
    for flag, key in LIST_FLAGS.items():  # a repeatable flag given replaces the file's whole list
        values = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == flag]
        if values:
            expected = dict(expected, **{key: values})
    for key, value in expected.items():
        if not same(value, effective.get(key)):
            return f"the effective configuration has {key}={effective.get(key)!r}, the deploy file {value!r}"
    return None


def probe_unknown_flag(place, sandbox):
    argv = [sandbox.value(a) for a in place.argv] + ["--no-such-flag", "--check-config"]
    run = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if run.returncode != 2 or "--no-such-flag" not in run.stdout + run.stderr:
        return f"an unknown flag gave exit {run.returncode} without naming it: the check could not fail"
    return None


def make_keys(folder):
    cert, key = os.path.join(folder, "server.crt"), os.path.join(folder, "server.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=torchscand-deploy-test", "-keyout", key, "-out", cert], check=True, capture_output=True)
    return {"cert": cert, "key": key}


def main(argv):
    xml_path = xml_flag(argv)
    torchscand = program("torchscand")
    checks = Checks("deploy_configs_test")
    if not checks.check("openssl is installed", shutil.which("openssl") is not None,
                        "openssl is missing: run scripts/setup.sh"):
        return checks.finish(xml_path)
    keys_dir = tempfile.mkdtemp(prefix="tsd-keys.")
    keys = make_keys(keys_dir)
    places = []
    for name, finder in (("systemd", systemd_places), ("container", container_place), ("kubernetes", kubernetes_places)):
        try:
            found = finder(".")
            places += found if isinstance(found, list) else [found]
            checks.check(f"{name}: the command line and the config it reads are found", True)
        except Exception as e:
            checks.check(f"{name}: the command line and the config it reads are found", False, f"{type(e).__name__}: {e}")
    for place in places:
        sandbox = Sandbox(torchscand, keys)
        checks.run(f"{place.name}: torchscand accepts its flags and configuration", check_place, place, sandbox)
        checks.run(f"{place.name}: an unknown flag is refused (the check can fail)", probe_unknown_flag, place, sandbox)
        shutil.rmtree(sandbox.root, ignore_errors=True)
    shutil.rmtree(keys_dir, ignore_errors=True)
    return checks.finish(xml_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
