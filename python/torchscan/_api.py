"""torchscan.measure, torchscan.compare and torchscan.assert_not_slower: one job each, submitted
to a daemon (_daemon.py), watched with progress until it finishes, its result fetched.

Keywords and defaults are the CLI's flags (README "Commands"), in Python spelling: zero or
None leaves the daemon's default. Ctrl-C cancels a private daemon's job, as the CLI does; a
shared daemon's job keeps running (the message says how to fetch or cancel it) unless
cancel_on_interrupt=True.
"""

import os
import sys
from typing import Any, Optional, Sequence, Union

import grpc

from torchscan import _workload
from torchscan._daemon import Connection
from torchscan._errors import (
    EXIT_INTERRUPTED,
    EXIT_JOB_FAILED,
    TorchScanError,
    from_rpc,
    python_words,
)
from torchscan._proto import service_pb2
from torchscan._results import Comparison, Measurement

_FINISHED = (service_pb2.Job.succeeded, service_pb2.Job.failed, service_pb2.Job.cancelled, service_pb2.Job.interrupted)
# A model: an nn.Module, a ScriptModule, or a saved module's path (str or os.PathLike). Inputs: a
# tensor, a shape (a tuple of ints), or a tuple of them. Spelled Any: torch is the caller's, and
# is imported only when a call needs it.
Model = Any
Inputs = Any

_CONNECTION_KEYWORDS = ("daemon", "token", "token_file", "tls_ca", "tls_cert", "tls_key", "tls_server_name")


def _in_notebook():
    """Whether this runs in a Jupyter kernel (its stderr is no terminal, yet shows "\\r" as one line)."""
    return "ipykernel" in sys.modules


class _Progress:
    """On a terminal, one line rewritten in place (with the blocks timed); in a notebook, one
    line rewritten with "\\r"; elsewhere (logs, CI), one line per phase, each phase once, so that
    alternating timing rounds do not fill the log."""

    def __init__(self, enabled):
        self.enabled = enabled
        self.mode = "off" if not enabled else "tty" if sys.stderr.isatty() else "notebook" if _in_notebook() else "lines"
        self.last = None
        self.seen = set()
        self.width = 0

    def show(self, job):
        if self.mode == "off":
            return
        state = service_pb2.Job.State.Name(job.state)
        text = f"[{job.id}] {state}" + (f": {job.phase}" if job.phase else "")
        if self.mode in ("tty", "notebook"):
            blocks = job.blocks_done
            text += f", {blocks} block{'s' if blocks != 1 else ''}" if blocks else ""
            if self.mode == "tty":
                sys.stderr.write("\r\033[K" + text)
            else:  # no terminal codes: pad over the longer line before
                self.width = max(self.width, len(text))
                sys.stderr.write("\r" + text.ljust(self.width))
            sys.stderr.flush()
        elif text not in self.seen:
            print(text, file=sys.stderr, flush=True)
            self.seen.add(text)
        self.last = text

    def end(self):
        if self.mode in ("tty", "notebook") and self.last is not None:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _options(spec, min_run_time, min_blocks, threads, rss, profile_calls, skip_diagnostics, instructions=False):
    o = spec.options
    o.instructions = bool(instructions)
    o.min_run_time_s = float(min_run_time or 0)
    o.min_blocks = int(min_blocks or 0)
    o.intra_op_threads = int(threads or 0)
    o.rss = bool(rss)
    o.profile_calls = int(profile_calls or 0)
    o.skip_diagnostics = bool(skip_diagnostics)


def _run(spec, connection_keywords, progress=True, cancel_on_interrupt=False):
    """Submits `spec`, watches it, returns (job, JobResult)."""
    with Connection(**connection_keywords) as connection:
        meta = connection.metadata
        try:
            job = connection.stub.Submit(service_pb2.SubmitRequest(spec=spec), metadata=meta)
        except grpc.RpcError as e:
            raise from_rpc(e, f"submit to {connection.address}") from None
        shown = _Progress(progress)
        try:
            for event in connection.stub.Watch(service_pb2.JobRequest(id=job.id), metadata=meta):
                job = event.job
                shown.show(job)
                if job.state in _FINISHED:
                    break
        except KeyboardInterrupt:
            shown.end()
            if connection.private or cancel_on_interrupt:
                try:
                    connection.stub.Cancel(service_pb2.JobRequest(id=job.id), metadata=meta, timeout=10)
                except grpc.RpcError:
                    pass
                raise TorchScanError(f"{job.id}: interrupted; the job was cancelled", EXIT_INTERRUPTED) from None
            raise TorchScanError(
                f"{job.id}: interrupted; the job keeps running on {connection.address}: "
                f"`torchscan-client --daemon {connection.address} jobs fetch {job.id} --output DIR` fetches it, "
                f"`jobs cancel {job.id}` cancels it",
                EXIT_INTERRUPTED,
            ) from None
        except grpc.RpcError as e:
            raise from_rpc(e, f"watch {job.id}") from None
        shown.end()
        if job.state != service_pb2.Job.succeeded:
            state = service_pb2.Job.State.Name(job.state)
            raise TorchScanError(f"{job.id} {state}: {python_words(job.error)}", EXIT_JOB_FAILED)
        try:
            result = connection.stub.FetchResult(service_pb2.JobRequest(id=job.id), metadata=meta)
        except grpc.RpcError as e:
            raise from_rpc(e, f"fetch {job.id}") from None
        return job, result


def _split(keywords):
    connection = {k: keywords.pop(k) for k in _CONNECTION_KEYWORDS if k in keywords}
    return connection


def measure(model: Model, inputs: Inputs = None, *, min_run_time: Optional[float] = None,
            min_blocks: Optional[int] = None, threads: Optional[int] = None, rss: bool = False,
            profile_calls: Optional[int] = None, skip_diagnostics: bool = False, instructions: bool = False,
            label: str = "", revision: str = "", node: str = "", device: Optional[str] = None,
            progress: bool = True, cancel_on_interrupt: bool = False, **connection: str) -> Measurement:
    """Measures one model on `inputs`: a Measurement (median_s, iqr_s, the report, save, render).

    `model`: an nn.Module (scripted, or traced on the inputs), a ScriptModule or a file path.
    `inputs`: a tensor, a shape, or a tuple of them. Connection keywords: daemon, token,
    token_file, tls_ca, tls_cert, tls_key, tls_server_name (as the CLI's flags).
    instructions=True also counts instructions per call under valgrind's callgrind
    (`m.instructions`), as the CLI's --instructions. node="NAME": on a Slurm front daemon,
    the node of its partition to run on (the CLI's --node). device="cuda:0": the device the
    daemon runs the model on (the CLI's --device; default cpu): one the daemon offers."""
    connection_keywords = _split(connection)
    if connection:
        raise TypeError(f"measure() got unexpected keyword arguments: {', '.join(sorted(connection))}")
    spec = service_pb2.JobSpec(label=label, revision=revision, node=node)
    workload, how = _workload.workload_spec(model, inputs, "model")
    spec.measure.workload.CopyFrom(workload)
    if device:
        spec.measure.workload.device = device
    _options(spec, min_run_time, min_blocks, threads, rss, profile_calls, skip_diagnostics, instructions)
    job, result = _run(spec, connection_keywords, progress, cancel_on_interrupt)
    return Measurement(result.report, job.id, {"model": how})


def compare(baseline: Model, candidate: Optional[Model] = None, inputs: Inputs = None, *,
            rtol: Optional[float] = None, atol: Optional[float] = None, check_dtype: Optional[str] = None,
            allow_non_finite: bool = False, check_module: Optional[Model] = None, no_check: bool = False,
            candidate_transform: Union[str, Sequence[str], None] = None, dynamic_shapes: Any = None,
            inductor_configs: Optional[dict] = None, reverse: bool = False, rounds: Optional[int] = None,
            smallest_change: Optional[float] = None, max_time: Optional[float] = None,
            max_other_cpu_share: Optional[float] = None, fixed_length: bool = False, min_run_time: Optional[float] = None, min_blocks: Optional[int] = None,
            threads: Optional[int] = None, rss: bool = False, profile_calls: Optional[int] = None,
            skip_diagnostics: bool = False, instructions: bool = False, label: str = "", revision: str = "",
            node: str = "", device: Optional[str] = None, progress: bool = True,
            cancel_on_interrupt: bool = False, **connection: str) -> Comparison:
    """Compares `baseline` with `candidate` (or with `baseline` changed by `candidate_transform`)
    on the same `inputs`, with an output check: a Comparison (label, claim, check, save, ...).

    The check is yours to choose, as in the CLI: rtol and atol (check_dtype casts both outputs,
    e.g. "float32" for a precision change), a TorchScript check_module file, or no_check=True.
    A failed check is not an exception: r.check is "failed" and the deltas are withheld.
    candidate_transform: one or a list of optimize_for_inference, freeze, channels_last,
    bfloat16, float16, per_sample (the CLI's --candidate-* variants); or "aot_inductor" alone:
    the baseline nn.Module exported on the inputs (torch.export.export, static shapes) and
    compiled here (torch._inductor.aoti_compile_and_package; the time it took is in r.how, never
    in the timing), against its uncompiled TorchScript form. dynamic_shapes= is passed to
    torch.export.export as it is (e.g. {"x": {0: torch.export.Dim("batch")}}): the package then
    takes those dimensions at any size its guards allow; without it the package takes the
    inputs' shapes only, and another shape is refused with the shapes named. inductor_configs= is
    passed to aoti_compile_and_package: {"cpp.enable_kernel_profile": True} marks each compiled
    kernel, and the operator profile then shows them by name with their time. A model may also be
    a .pt2 package path or a torch.export.ExportedProgram (compiled here).
    instructions=True adds callgrind instruction counts and their function-level diff
    (`r.instructions`), beside the label, as the CLI's --instructions. node="NAME": on a
    Slurm front daemon, the node that runs both sides (the CLI's --node). max_other_cpu_share:
    build pairs timed while other processes used more of the job's CPUs are left out of the
    decision (the CLI's --max-other-cpu-share; default 0.5). device="cuda:0": the device both
    sides run on (the CLI's --device; default cpu): one the daemon offers."""
    connection_keywords = _split(connection)
    if connection:
        raise TypeError(f"compare() got unexpected keyword arguments: {', '.join(sorted(connection))}")
    spec = service_pb2.JobSpec(label=label, revision=revision, node=node)
    c = spec.compare
    transforms = [candidate_transform] if isinstance(candidate_transform, str) else list(candidate_transform or [])
    for name, given, to in (("dynamic_shapes", dynamic_shapes, "torch.export.export"),
                            ("inductor_configs", inductor_configs, "aoti_compile_and_package")):
        if given is not None and (candidate is not None or "aot_inductor" not in transforms):
            raise TorchScanError(f"{name}: applies to candidate_transform=\"aot_inductor\" only (it is passed to "
                                 f"{to}); compile a candidate yourself and pass it as candidate=", 2)
    base, base_how = _workload.workload_spec(baseline, inputs, "baseline")
    c.baseline.CopyFrom(base)
    how = {"baseline": base_how}
    if candidate is None:
        if not candidate_transform:
            raise TorchScanError(
                "candidate: give a candidate model, or candidate_transform= to compare the baseline with a changed "
                "copy of itself",
                2,
            )
        c.candidate.CopyFrom(base)
        how["candidate"] = base_how
        names = transforms
        if "aot_inductor" in names:
            # Compiled against uncompiled: the same module, exported and compiled here (the
            # compile time is `how`'s, never the timing's), against its TorchScript form.
            if len(names) > 1:
                raise TorchScanError("candidate_transform: aot_inductor compiles the model as it is; compile a variant "
                                     "(e.g. model.to(torch.bfloat16)) yourself and pass it as candidate=", 2)
            if isinstance(baseline, (str, os.PathLike)) or type(baseline).__name__ in (
                    "RecursiveScriptModule", "ScriptModule", "ExportedProgram"):
                raise TorchScanError("candidate_transform: aot_inductor exports the baseline with torch.export, "
                                     "which takes an nn.Module (not a file, a ScriptModule or an ExportedProgram)", 2)
            package, how["candidate"] = _workload.export_and_compile(baseline, inputs, "candidate", dynamic_shapes,
                                                                      inductor_configs)
            c.candidate.model.Clear()
            c.candidate.model.aot_inductor.package_bytes = package
            c.candidate.model.aot_inductor.source_name = "python: the baseline, exported and compiled"
            candidate_transform = None
    else:
        cand, how["candidate"] = _workload.workload_spec(candidate, inputs, "candidate")
        c.candidate.CopyFrom(cand)
    _workload.apply_transform(c.candidate, candidate_transform)
    if device:
        c.baseline.device = c.candidate.device = device
    chosen = [name for name, given in (("rtol/atol", rtol is not None or atol is not None),
                                       ("check_module", check_module is not None), ("no_check", no_check)) if given]
    if len(chosen) != 1:
        raise TorchScanError(
            "check: choose one output check: rtol= and atol= (TorchScan chooses no tolerance), check_module=FILE, "
            f"or no_check=True (got {', '.join(chosen) or 'none'})",
            2,
        )
    if no_check:
        c.check.skip = True
    elif check_module is not None:
        module, _ = _workload.module_spec(check_module, None, "check_module")
        c.check.torchscript.CopyFrom(module)
    else:
        if rtol is None or atol is None:
            raise TorchScanError("check: give both rtol= and atol= (TorchScan chooses no tolerance)", 2)
        d = c.check.declarative
        d.rtol, d.atol, d.allow_non_finite = float(rtol), float(atol), bool(allow_non_finite)
        if check_dtype:
            names = service_pb2.DeclarativeCheck.CompareDType.keys()
            if check_dtype not in names:
                raise TorchScanError(f"check_dtype: {check_dtype!r} is not one of {', '.join(names)}", 2)
            d.compare_dtype = service_pb2.DeclarativeCheck.CompareDType.Value(check_dtype)
    c.reverse = bool(reverse)
    c.rounds = int(rounds or 0)
    c.smallest_change = float(smallest_change or 0)
    c.max_time_s = float(max_time or 0)
    c.max_other_cpu_share = float(max_other_cpu_share or 0)
    c.fixed_length = bool(fixed_length)
    _options(spec, min_run_time, min_blocks, threads, rss, profile_calls, skip_diagnostics, instructions)
    job, result = _run(spec, connection_keywords, progress, cancel_on_interrupt)
    return Comparison(result.comparison, job.id, how)


def _instruction_verdict(r, threshold):
    d = r.proto.instructions
    if not d.known or not d.HasField("relative_change"):
        return "unavailable"
    beyond = max(threshold, d.spread)
    if d.relative_change > beyond:
        return "slower"
    return "faster" if d.relative_change < -beyond else "within_threshold"


def assert_not_slower(baseline: Model, candidate: Optional[Model] = None, inputs: Inputs = None, *,
                      fail_on: str = "slower", gate_on: str = "label", instruction_threshold: float = 0.01,
                      **keywords: Any) -> Comparison:
    """compare(), then an AssertionError when the output check failed or the verdict matches
    `fail_on` (slower, not-faster, any-change; read from the guide's label, the paired claim
    with gate_on="claim", or the callgrind instruction count with gate_on="instructions": a
    change beyond `instruction_threshold`, 0.01 = 1 %, counts), as `torchscan-client compare
    --fail-on` does for CI. Returns the Comparison."""
    if fail_on not in ("slower", "not-faster", "any-change"):
        raise TorchScanError(f"fail_on: {fail_on!r} is not one of slower, not-faster, any-change", 2)
    if gate_on not in ("label", "claim", "instructions"):
        raise TorchScanError(f"gate_on: {gate_on!r} is not one of label, claim, instructions", 2)
    if gate_on == "instructions":
        keywords["instructions"] = True
    r = compare(baseline, candidate, inputs, **keywords)
    if r.check == "failed":
        raise AssertionError(f"{r.job_id}: the output check failed: {r.proto.output_check.message}")
    if gate_on == "instructions":
        verdict = _instruction_verdict(r, float(instruction_threshold))
    elif gate_on == "label":
        verdict = r.label
    else:
        verdict = r.claim if r.proto.evidence.HasField("paired") else "unavailable"
    matched = {
        "slower": verdict == "slower",
        "not-faster": verdict != "faster",
        "any-change": verdict in ("faster", "slower"),
    }[fail_on]
    if matched:
        what = {"label": "label", "claim": "paired claim", "instructions": "instruction count"}[gate_on]
        raise AssertionError(f"{r.job_id}: fail_on {fail_on}: the {what} says {verdict}: {r.verdict}")
    return r
