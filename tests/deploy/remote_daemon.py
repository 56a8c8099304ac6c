"""A real torchscand serving TCP with TLS and a token, as deploy/README.md section 3 sets one up:
the systemd unit's command line plus the TCP drop-in (tcp-tls.conf), moved into a Sandbox
(places.py: a scratch root, a throw-away certificate for localhost, the token file holding
places.TOKEN) and listening on a free port instead of 50051. Clients reach it at `tcp` with
--tls-ca `cert` and that token, or at `unix` without one.

start() returns None once the daemon answers `info` over TLS with the token, or the reason it
did not (its log's tail); stop() sends SIGTERM and returns its exit status; remove() deletes the
scratch folders. ValueError from places.py when the deploy files' links are broken.
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from checklib import program, read_text
from places import TOKEN, Sandbox, make_keys, systemd_places

DROPIN_PLACE = "systemd unit + tcp-tls.conf"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RemoteDaemon:
    def __init__(self):
        self.keys_dir = tempfile.mkdtemp(prefix="tsd-keys.")
        keys = make_keys(self.keys_dir)
        self.cert = keys["cert"]
        place = [p for p in systemd_places(".") if p.name == DROPIN_PLACE][0]
        port = free_port()
        place.argv = [a.replace(":50051", f":{port}") for a in place.argv]
        self.sandbox = Sandbox(keys)
        self.argv, _ = self.sandbox.install(place)
        self.unix = [a for a in self.argv if a.startswith("unix:")][0]
        self.tcp = f"localhost:{port}"
        self.log_path = os.path.join(self.sandbox.root, "torchscand.log")
        self.process = None

    def log(self):
        return read_text(self.log_path) if os.path.exists(self.log_path) else ""

    def answers(self):
        env = dict(os.environ, TORCHSCAN_TOKEN=TOKEN)
        run = subprocess.run([program("torchscan-client"), "--daemon", self.tcp, "--tls-ca", self.cert, "info"],
                             capture_output=True, text=True, env=env, timeout=60)
        return run.returncode == 0

    def start(self, timeout_s=30):
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(self.argv, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and self.process.poll() is None:
            if self.answers():
                return None
            time.sleep(0.2)
        return f"torchscand did not come up: {self.log().strip()[-800:]}"

    def stop(self):
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def remove(self):
        self.sandbox.remove()
        shutil.rmtree(self.keys_dir, ignore_errors=True)
