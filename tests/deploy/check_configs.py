"""Every place in deploy/ that starts torchscand passes the real torchscand --check-config.

Usage: check_configs.py [--xml FILE]   (run by bazel test, from the runfiles root)

The places (places.py): the systemd unit's ExecStart (alone, and with the TCP drop-in
tcp-tls.conf), the Containerfile's ENTRYPOINT, and each Kubernetes DaemonSet's command +
args, each with the configuration file it reads where it is deployed. Only machine-specific things are changed: every absolute path moves under a throw-away root
(binaries in /usr/local/bin become the ones built here), socket_group becomes this test's
own group, and the files the configuration names are created there (a TLS certificate and
key made by openssl, a token file with mode 0600). Then `torchscand ARGS --check-config`
must exit 0 and its effective configuration must hold every value the deploy file set.
A probe per place with one unknown flag must exit 2, so the check is known to be able to fail.
"""

import json
import shutil
import subprocess
import sys
import tempfile

from checklib import Checks, xml_flag
from places import Sandbox, container_place, kubernetes_places, make_keys, systemd_places


LIST_FLAGS = {"--listen": "listen", "--device": "devices"}


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
    argv, expected = sandbox.install(place)
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


def main(argv):
    xml_path = xml_flag(argv)
    checks = Checks("deploy_configs_test")
    if not checks.check("openssl is installed", shutil.which("openssl") is not None,
                        "openssl is missing: run scripts/setup.sh"):
        return checks.finish(xml_path)
    keys_dir = tempfile.mkdtemp(prefix="tsd-keys.")
    keys = make_keys(keys_dir)
    places = []
    # How many places each deploy form has: the unit alone and with its drop-in, the image's
    # ENTRYPOINT, the CPU and GPU DaemonSets. A place not found would not be checked below.
    for name, finder, expected in (("systemd", systemd_places, 2), ("container", container_place, 1),
                                   ("kubernetes", kubernetes_places, 2)):
        try:
            found = finder(".")
            found = found if isinstance(found, list) else [found]
            places += found
            checks.check(f"{name}: the command line and the config it reads are found", len(found) == expected,
                         f"{len(found)} places found, {expected} expected: {[p.name for p in found]}")
        except Exception as e:
            checks.check(f"{name}: the command line and the config it reads are found", False, f"{type(e).__name__}: {e}")
    for place in places:
        sandbox = Sandbox(keys)
        checks.run(f"{place.name}: torchscand accepts its flags and configuration", check_place, place, sandbox)
        checks.run(f"{place.name}: an unknown flag is refused (the check can fail)", probe_unknown_flag, place, sandbox)
        sandbox.remove()
    shutil.rmtree(keys_dir, ignore_errors=True)
    return checks.finish(xml_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
