"""A job's result in Python: the daemon's Comparison or BenchmarkReport, with the figures a
caller reads first, and the CLI's own renderings of it.

save(dir) writes comparison.json (report.json) as the CLI does (io/proto_json.cc's options:
field names as in proto/, every field printed) and the HTML page beside it; to_markdown() is
the review comment and _repr_html_() the compact notebook view (the full page is save()'s). The renderings come from
`torchscan-client render` (report/, the one renderer), so Python and the CLI never differ.
"""

import os
import subprocess
import tempfile
from typing import Dict, List, Optional

from google.protobuf import json_format

from torchscan._daemon import find_program
from torchscan._errors import EXIT_BAD_INPUT, TorchScanError, python_words
from torchscan._proto import report_pb2


def to_json(message) -> str:
    """The CLI's JSON (io/proto_json.cc): proto field names, every field printed. protobuf 5.26
    renamed the keyword that prints fields left at their defaults; both spellings are accepted."""
    try:
        return json_format.MessageToJson(
            message, always_print_fields_with_no_presence=True, preserving_proto_field_name=True, indent=2
        )
    except TypeError:  # protobuf < 5.26
        return json_format.MessageToJson(
            message, including_default_value_fields=True, preserving_proto_field_name=True, indent=2
        )


def find_client():
    """torchscan-client, the one renderer: $TORCHSCAN_CLIENT, $PATH, or beside torchscand."""
    return find_program("torchscan-client", "TORCHSCAN_CLIENT", ("torchscand", "TORCHSCAND"), EXIT_BAD_INPUT)


def _libtorch_versions(message):
    """The LibTorch versions the result's runs were measured with (a report's, or both of a comparison's)."""
    reports = [message.before, message.after] if hasattr(message, "before") else [message]
    return sorted({r.environment.libtorch_version for r in reports if r.environment.libtorch_version})


def version_notes(message) -> List[str]:
    """A note when the caller's torch is not the daemon's LibTorch (local builds such as +cu130 aside)."""
    try:
        import torch
    except ImportError:
        return []
    mine = torch.__version__.split("+")[0]
    theirs = [v for v in _libtorch_versions(message) if v.split("+")[0] != mine]
    if not theirs:
        return []
    return [f"your torch is {torch.__version__}, the daemon's LibTorch is {', '.join(theirs)}: the modules were "
            "saved by yours and measured with its kernels (oneDNN, BLAS and the allocator differ between versions)"]


class _Result:
    _json_name = ""

    def __init__(self, message, job_id: str, how: Optional[Dict[str, str]] = None):
        self.proto = message  # the raw proto (v1.Comparison or v1.BenchmarkReport): every block, large
        self.job_id = job_id
        self.how: Dict[str, str] = how or {}  # per side: how a Python model became TorchScript
        self.notes: List[str] = version_notes(message) if how else []  # what the caller should know

    @property
    def message(self):
        """The raw proto under its old name; r.proto is the same object."""
        return self.proto

    def to_json(self):
        return to_json(self.proto)

    def render(self, fmt="html", details=False):
        """The CLI's rendering: html, terminal, markdown, csv or gbench."""
        with tempfile.TemporaryDirectory(prefix="torchscan-render-") as folder:
            path = os.path.join(folder, self._json_name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(self.to_json())
            args = [find_client(), "render", path, "--format", fmt] + (["--details"] if details else [])
            done = subprocess.run(args, capture_output=True, text=True)
            if done.returncode != 0:
                raise TorchScanError(f"render --format {fmt}: {done.stderr.strip()}", done.returncode)
            return done.stdout

    def save(self, folder):
        """Writes <json> and its .html into `folder` (made if missing); returns the JSON's path."""
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, self._json_name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json())
        html = os.path.splitext(path)[0] + ".html"
        with open(html, "w", encoding="utf-8") as f:
            f.write(self.render("html"))
        return path

    def to_markdown(self, details=False):
        return self.render("markdown", details)

    def _repr_html_(self):
        """The compact notebook view (report/notebook_renderer.h): verdict, cards, plots, deltas;
        tens of kilobytes. The full page is save()'s."""
        return python_words(self.render("notebook"))

    def __str__(self):
        return python_words(self.render("terminal"))


class Comparison(_Result):
    """A compare job's result. `label` is the guide's (faster, slower, within_variability,
    unavailable), `claim` the paired evidence's (faster, slower, equivalent, no_claim), `check`
    the output check's status (passed, failed, not_provided)."""

    _json_name = "comparison.json"

    @property
    def label(self):
        return report_pb2.Comparison.LatencyChange.Name(self.proto.latency_change)

    @property
    def claim(self):
        return report_pb2.PairedEvidence.Claim.Name(self.proto.evidence.paired.claim)

    @property
    def check(self):
        return report_pb2.OutputCheck.Status.Name(self.proto.output_check.status)

    @property
    def verdict(self):
        """The summary's first sentence (report/verdict_sentence.h), as the terminal prints it."""
        for line in self.render("terminal").splitlines():
            if line.strip().startswith("verdict "):
                return line.strip()[len("verdict"):].strip()
        return ""

    @property
    def instructions(self):
        """With instructions=True: the relative change of instructions per call (0.02 = +2 %),
        or None when not counted or withheld (r.proto.instructions says why, and holds the
        function-level diff)."""
        d = self.proto.instructions
        return d.relative_change if d.known and d.HasField("relative_change") else None

    @property
    def before(self):
        return Measurement(self.proto.before, self.job_id)

    @property
    def after(self):
        return Measurement(self.proto.after, self.job_id)

    def __repr__(self):
        return f"<torchscan.Comparison {self.job_id}: label {self.label}, claim {self.claim}, check {self.check}>"


class Measurement(_Result):
    """A measure job's report (or one run of a comparison): median and IQR per call, in seconds."""

    _json_name = "report.json"

    @property
    def median_s(self):
        return self.proto.timing.summary.median_s

    @property
    def iqr_s(self):
        return self.proto.timing.summary.iqr_s

    @property
    def instructions(self):
        """With instructions=True: instructions per call counted under callgrind, or None
        (r.proto.instructions.diagnostics says why)."""
        c = self.proto.instructions
        return c.instructions if c.complete and c.HasField("instructions") else None

    def __repr__(self):
        return f"<torchscan.Measurement {self.job_id}: median {self.median_s * 1e3:.4g} ms, IQR {self.iqr_s * 1e3:.4g} ms>"


def load(path):
    """A saved comparison.json or report.json, as the CLI wrote it (or save() did)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if os.path.basename(path).startswith("comparison") or '"before"' in text[:4000]:
        return Comparison(json_format.Parse(text, report_pb2.Comparison()), "")
    return Measurement(json_format.Parse(text, report_pb2.BenchmarkReport()), "")
