"""deploy/README.md's remote-client steps, for real: torchscand started with the systemd
unit's command line plus the TCP drop-in (tcp-tls.conf), and torchscan-client used from
"another machine" the way the README says (--daemon HOST:PORT --tls-ca CERT, a token in
TORCHSCAN_TOKEN), and from the unit's socket as a local user.

Usage: check_remote.py [--xml FILE]   (run by bazel test, from the runfiles root)

Machine-specific things change as in check_configs.py (places.py: a scratch root, a
throw-away certificate for localhost and token file), and the TCP port becomes a free one.
"""

import os
import subprocess
import sys

from checklib import Checks, program, xml_flag
from places import TOKEN
from remote_daemon import RemoteDaemon


class Client:
    def __init__(self, cert):
        self.binary = program("torchscan-client")
        self.cert = cert

    def run(self, daemon, *args, token=None, tls=True):
        env = {k: v for k, v in os.environ.items() if k != "TORCHSCAN_TOKEN"}
        if token:
            env["TORCHSCAN_TOKEN"] = token
        argv = [self.binary, "--daemon", daemon] + (["--tls-ca", self.cert] if tls else []) + list(args)
        return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)


def expect(run, code, *words):
    """None when `run` exited `code` and its output holds every word; else what happened."""
    output = run.stdout + run.stderr
    if run.returncode != code or not all(w in output for w in words):
        return f"exit {run.returncode} (expected {code}{', naming ' + ', '.join(words) if words else ''}): " \
               f"{output.strip()[-600:]}"
    return None


def main(argv):
    xml_path = xml_flag(argv)
    checks = Checks("remote_client_test")
    daemon = RemoteDaemon()
    tcp, unix = daemon.tcp, daemon.unix
    client = Client(daemon.cert)
    try:
        failure = daemon.start()
        if not checks.check("the drop-in's torchscand serves TCP with TLS and tokens", failure is None and
                            "TLS, bearer tokens" in daemon.log(), failure or daemon.log().strip()[-800:]):
            return checks.finish(xml_path)
        checks.run("remote: --tls-ca and a token get the daemon's info", lambda: expect(
            client.run(tcp, "info", token=TOKEN), 0, "torchscand", "devices"))
        out = os.path.join(daemon.sandbox.root, "out")
        checks.run("remote: a job submitted over TLS comes back with its report", lambda: expect(
            client.run(tcp, "measure", "--model", "linear", "--min-run-time", "0.05", "--output", out, token=TOKEN),
            0, "succeeded") or (None if os.path.getsize(os.path.join(out, "report.json")) > 0 else "no report.json"))
        checks.run("remote: a wrong token is refused (exit 5)", lambda: expect(
            client.run(tcp, "info", token="not-a-token-of-this-daemon"), 5, "token"))
        checks.run("remote: without --tls-ca no request is answered", lambda: None if client.run(
            tcp, "info", token=TOKEN, tls=False).returncode != 0 else "a plaintext client was answered")
        checks.run("local: a user on the unix socket needs no token", lambda: expect(
            client.run(unix, "info", tls=False), 0, "torchscand"))
    finally:
        status = daemon.stop()
    checks.check("SIGTERM stops the daemon cleanly (exit 0)", status == 0,
                 f"exit {status}: {daemon.log().strip()[-400:]}")
    daemon.remove()
    return checks.finish(xml_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
