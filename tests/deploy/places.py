"""Where deploy/ starts torchscand, and a scratch root to start it from.

A Place is one deploy-time torchscand command line with the configuration files it reads,
found the way each platform finds them:
  systemd     the `install ... SRC DEST` lines in the unit's header say where SRC goes; the
              drop-in tcp-tls.conf replaces ExecStart (%d: the unit's credentials folder)
  container   the COPY instruction whose destination is the --config path
  Kubernetes  the ConfigMap key mounted (volumeMounts + configMap items) at the --config path
A Sandbox moves a Place's absolute paths under a throw-away root, with the programs built
here installed in its /usr/local/bin, and creates what the configuration names there.
Finders raise ValueError naming the file when a link between the files is broken.
"""

import grp
import json
import os
import shutil
import subprocess
import tempfile

from checklib import (daemonset_config, exec_argv, exec_form, load_yaml_documents, program, read_containerfile,
                      read_text, read_unit, unit_values)

CREDENTIALS_DIR = "/run/credentials/torchscand.service"  # systemd's %d for this unit
INSTALLED = "/usr/local/bin/"  # where deploy/ expects the programs (scripts/install.sh /usr/local)
TOKEN = "0123456789abcdef0123456789abcdef"  # the throw-away token file's one token, user ci-admin
TOKEN_LINE = f"ci-admin {TOKEN} admin\n"


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
    """A throw-away root: deployed absolute paths move under it. The daemon-side programs are
    installed in its /usr/local/bin as scripts/install.sh does (readable by everyone, since a
    torchscand started as root runs its workers as worker_user, default nobody)."""

    def __init__(self, keys):
        self.root = tempfile.mkdtemp(prefix="tsd.", dir="/tmp")  # short: unix socket paths <= 107 bytes
        os.chmod(self.root, 0o755)
        self.keys = keys  # {"cert": path, "key": path}
        os.makedirs(self.root + INSTALLED, mode=0o755)
        for name in ("torchscand", "torchscan-worker", "torchscan_rss_child"):
            shutil.copy(program(name), self.root + INSTALLED + name)
            os.chmod(self.root + INSTALLED + name, 0o755)

    def path(self, deployed):
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

    def install(self, place):
        """Lays out what `place` reads under the root (its configs relocated, socket_group this
        process's group, the certificate, key and token files they name, the socket folders)
        and returns (argv, config): the relocated command line and configuration."""
        group = grp.getgrgid(os.getgid()).gr_name
        argv = [self.value(a) for a in place.argv]
        for i, a in enumerate(place.argv[:-1]):
            if a in FLAG_FILES:
                self.provide(argv[i + 1], FLAG_FILES[a])
        config = {}
        for deployed_path, text in place.configs.items():
            config = self.value(json.loads(text))
            if "socket_group" in config:
                config["socket_group"] = group
            for fields, kind in FILE_FIELDS.items():
                node = config
                for f in fields[:-1]:
                    node = node.get(f, {})
                if node.get(fields[-1]):
                    self.provide(node[fields[-1]], kind)
            target = self.path(deployed_path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as f:
                json.dump(config, f)
        # The socket folders, which each platform makes (systemd's RuntimeDirectory, the
        # Containerfile's install -d, a volume); torchscand makes state_dir itself.
        for address in argv + config.get("listen", []):
            if address.startswith("unix:"):
                os.makedirs(os.path.dirname(address[len("unix:"):]), exist_ok=True)
        return argv, config

    def remove(self):
        shutil.rmtree(self.root, ignore_errors=True)


FILE_FIELDS = {("tls", "cert_file"): "cert", ("tls", "key_file"): "key", ("tls", "client_ca_file"): "cert",
               ("token_file",): "tokens"}
FLAG_FILES = {"--tls-cert": "cert", "--tls-key": "key", "--tls-client-ca": "cert", "--token-file": "tokens"}


def make_keys(folder):
    """A throw-away self-signed certificate for "localhost" and its key, made by openssl in
    `folder`: {"cert": path, "key": path}."""
    cert, key = os.path.join(folder, "server.crt"), os.path.join(folder, "server.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost", "-keyout", key, "-out", cert],
                   check=True, capture_output=True)
    return {"cert": cert, "key": key}
