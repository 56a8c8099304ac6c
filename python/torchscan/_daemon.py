"""Which daemon a call talks to, and the private one started when none is named.

`daemon=` wins over $TORCHSCAN_DAEMON, which wins over the personal daemon while it runs
(`torchscan-client daemon start`), which wins over a private daemon started for the call, as in
the CLI. The private daemon is started as client/embedded_daemon.cc starts it:
its own state folder and unix socket in a fresh temporary folder, `--worker-user root` when
run as root, the private upload limit, no spare worker, no sandbox (its caller is its only
user); it is stopped (SIGTERM, then SIGKILL after 10 s) and its folder removed afterwards.
torchscand is found as the CLI finds it: $TORCHSCAND, else torchscand on $PATH, else beside
torchscan-client on $PATH.
"""

import os
import shutil
import signal
import subprocess
import tempfile
import time

import grpc

from torchscan._errors import EXIT_BAD_INPUT, EXIT_UNREACHABLE, TorchScanError
from torchscan._proto import service_pb2_grpc

# client/embedded_daemon.h kPrivateMaxUploadBytes.
PRIVATE_MAX_UPLOAD_BYTES = 180 << 20
START_TIMEOUT_S = 30


def find_program(name, variable, sibling, error_code):
    """`name`'s path: $`variable`, else `name` on $PATH, else beside `sibling` on $PATH (as the
    programs are installed together); TorchScanError naming the places searched otherwise."""
    explicit = os.environ.get(variable, "")
    if explicit:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit
        raise TorchScanError(f"${variable}: {explicit} is not an executable file", error_code)
    found = shutil.which(name)
    if found:
        return found
    other = os.environ.get(sibling[1], "") or shutil.which(sibling[0])
    if other:
        beside = os.path.join(os.path.dirname(os.path.realpath(other)), name)
        if os.access(beside, os.X_OK):
            return beside
    raise TorchScanError(
        f"no {name} found (${variable}, $PATH, beside {sibling[0]}): install it with `scripts/install.sh`",
        error_code,
    )


def find_torchscand():
    return find_program("torchscand", "TORCHSCAND", ("torchscan-client", "TORCHSCAN_CLIENT"), EXIT_UNREACHABLE)


def personal_daemon():
    """The personal daemon's address while it runs (`torchscan-client daemon start`), else "": its
    pid file names a live torchscand and its address file a socket that exists
    (client/personal_daemon.cc's rule)."""
    state = os.environ.get("XDG_STATE_HOME", "")
    folder = os.path.join(state if state.startswith("/") else os.path.join(os.path.expanduser("~"), ".local", "state"),
                          "torchscan")
    try:
        with open(os.path.join(folder, "torchscand.pid"), encoding="ascii") as f:
            pid = int(f.read().strip())
        with open(f"/proc/{pid}/comm", encoding="ascii") as f:
            if f.read().strip() != "torchscand":
                return ""
        with open(os.path.join(folder, "torchscand.address"), encoding="utf-8") as f:
            address = f.read().strip()
    except (OSError, ValueError):
        return ""
    return address if address.startswith("unix:") and os.path.exists(address[len("unix:"):]) else ""


class PrivateDaemon:
    """A torchscand of this call's own; a context manager that stops it."""

    def __init__(self):
        binary = find_torchscand()
        self.folder = tempfile.mkdtemp(prefix="torchscan-python-")
        self.address = "unix:" + os.path.join(self.folder, "torchscand.sock")
        args = [binary, "--state-dir", os.path.join(self.folder, "state"), "--listen", self.address]
        if os.geteuid() == 0:
            args += ["--worker-user", "root"]
        args += ["--max-upload", str(PRIVATE_MAX_UPLOAD_BYTES), "--no-spare-worker", "--sandbox", "off"]
        self._log = open(os.path.join(self.folder, "torchscand.log"), "wb")
        # Its own process group: a Ctrl-C at the terminal reaches this program alone, which
        # cancels the job and then stops the daemon.
        self.process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log, start_new_session=True
        )

    def wait_ready(self, channel):
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                grpc.channel_ready_future(channel).result(timeout=0.2)
                return
            except grpc.FutureTimeoutError:
                continue
        raise TorchScanError(
            f"the private torchscand did not start: {self._last_log_lines()}", EXIT_UNREACHABLE
        )

    def _last_log_lines(self):
        self._log.flush()
        try:
            with open(os.path.join(self.folder, "torchscand.log"), "rb") as f:
                lines = f.read().decode("utf-8", "replace").strip().splitlines()
        except OSError:
            lines = []
        status = self.process.poll()
        said = " | ".join(lines[-3:]) or "no output"
        return f"exit status {status}, {said}" if status is not None else f"no answer in {START_TIMEOUT_S} s, {said}"

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _read(path, what):
    try:
        with open(os.path.expanduser(path), "rb") as f:
            return f.read()
    except OSError as e:
        raise TorchScanError(f"{what}: cannot read {path}: {e.strerror}", EXIT_BAD_INPUT) from None


def _token(token, token_file):
    """The bare token: `token`, else the file's (a bare token or a USER TOKEN line), else $TORCHSCAN_TOKEN's."""
    if token:
        return token
    path = token_file or os.environ.get("TORCHSCAN_TOKEN", "")
    if not path:
        return ""
    words = _read(path, "token_file").decode("utf-8", "replace").split()
    if len(words) not in (1, 2):
        raise TorchScanError(f"token_file: {path} holds neither a bare token nor a 'USER TOKEN' line", EXIT_BAD_INPUT)
    return words[-1]


class Connection:
    """A stub to one daemon (and the private daemon behind it, if any); a context manager."""

    def __init__(self, daemon=None, token=None, token_file=None, tls_ca=None, tls_cert=None, tls_key=None,
                 tls_server_name=None):
        self.private = None
        address = daemon or os.environ.get("TORCHSCAN_DAEMON", "") or personal_daemon()
        if not address:
            self.private = PrivateDaemon()
            address = self.private.address
        try:
            self._open(address, token, token_file, tls_ca, tls_cert, tls_key, tls_server_name)
        except BaseException:
            if self.private:  # refused settings or no answer: the daemon started for this call stops
                self.private.stop()
                self.private = None
            raise

    def _open(self, address, token, token_file, tls_ca, tls_cert, tls_key, tls_server_name):
        if address.startswith("/") or address.startswith("."):
            address = "unix:" + address  # as the CLI normalizes a socket path
        self.address = address
        bearer = _token(token, token_file)
        unix = address.startswith("unix:")
        limits = [("grpc.max_receive_message_length", -1), ("grpc.max_send_message_length", -1)]
        # The CLI's rules (client/daemon_client.cc ChannelCredentials), in the keywords' names.
        if not tls_ca:
            if bearer and not unix:
                raise TorchScanError(
                    f"token: refusing to send a token to {address} without TLS; pass tls_ca with the CA of the "
                    "daemon's certificate",
                    EXIT_BAD_INPUT,
                )
            if tls_cert:
                raise TorchScanError("tls_cert: a client certificate needs TLS; pass tls_ca too", EXIT_BAD_INPUT)
            self.channel = grpc.insecure_channel(address, options=limits)
        else:
            if unix:
                raise TorchScanError("tls_ca: unix sockets do not use TLS; drop tls_ca", EXIT_BAD_INPUT)
            if bool(tls_cert) != bool(tls_key):
                raise TorchScanError(
                    "tls_cert and tls_key go together: give both for mutual TLS, or neither", EXIT_BAD_INPUT
                )
            creds = grpc.ssl_channel_credentials(
                root_certificates=_read(tls_ca, "tls_ca"),
                private_key=_read(tls_key, "tls_key") if tls_key else None,
                certificate_chain=_read(tls_cert, "tls_cert") if tls_cert else None,
            )
            if tls_server_name:
                limits.append(("grpc.ssl_target_name_override", tls_server_name))
            self.channel = grpc.secure_channel(address, creds, options=limits)
        self.metadata = [("authorization", "Bearer " + bearer)] if bearer else []
        self.stub = service_pb2_grpc.TorchScanStub(self.channel)
        if self.private:
            self.private.wait_ready(self.channel)

    def close(self):
        self.channel.close()
        if self.private:
            self.private.stop()
            self.private = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
