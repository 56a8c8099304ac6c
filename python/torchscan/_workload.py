"""What a Python caller gives, as the job's WorkloadSpec: a model and its inputs.

A model is a file path (its bytes are sent, as the CLI uploads --torchscript FILE: a
TorchScript module or an AOTInductor package, told apart by their zip entries; an exported
program saved with torch.export.save is compiled into a package here), a
torch.export.ExportedProgram (compiled here with torch._inductor.aoti_compile_and_package), a
ScriptModule (saved with torch.jit.save, in memory), or an nn.Module: scripted with
torch.jit.script, or, when that fails, traced with torch.jit.trace on the inputs in eval mode
(strictly, then with strict=False; the module's mode is restored afterwards). TorchScript is
the form the daemon's LibTorch loads in C++; `how` says which way a module got there, and the
spec's source_name names the torch that saved it (the daemon's load error quotes it). Inputs
are tensors (sent as torch.save bytes, as --input-file sends a file) or shapes (a generated
float32 normal(0, 1) tensor, as --input 8x3x64x64). torch is imported only here, and only when a call needs it.
"""

import io
import os
import zipfile

from torchscan._errors import EXIT_BAD_INPUT, TorchScanError
from torchscan._proto import workload_pb2

# candidate_transform names: the CLI's --candidate-* variants, and aot_inductor (compiled here).
TRANSFORMS = ("optimize_for_inference", "freeze", "channels_last", "bfloat16", "float16", "per_sample", "aot_inductor")


def _is_shape(value):
    return isinstance(value, (tuple, list)) and all(isinstance(d, int) and not isinstance(d, bool) for d in value)


def _as_tuple(inputs):
    if inputs is None:
        return ()
    if _is_shape(inputs) or not isinstance(inputs, (tuple, list)):
        return (inputs,)  # one input: a tensor or one shape
    return tuple(inputs)


def input_specs(inputs):
    """InputSpecs for `inputs` (a tensor, a shape, or a tuple of them)."""
    specs = []
    for i, value in enumerate(_as_tuple(inputs)):
        spec = workload_pb2.InputSpec()
        if _is_shape(value) or type(value).__name__ == "Size":
            if any(d < 0 for d in value):
                raise TorchScanError(f"inputs[{i}]: every dimension must be >= 0, got {tuple(value)}", EXIT_BAD_INPUT)
            spec.generated.shape.extend(int(d) for d in value)
        elif type(value).__module__.startswith("torch") and hasattr(value, "detach"):
            import torch

            buffer = io.BytesIO()
            torch.save(value.detach().cpu().contiguous(), buffer)
            spec.tensor_bytes = buffer.getvalue()
            spec.source_name = f"python: inputs[{i}], {tuple(value.shape)} {str(value.dtype).replace('torch.', '')}"
        else:
            raise TorchScanError(
                f"inputs[{i}]: a {type(value).__name__} is neither a tensor nor a shape; give torch tensors "
                "(sent as torch.save bytes) or shapes such as (8, 3, 64, 64)",
                EXIT_BAD_INPUT,
            )
        specs.append(spec)
    return specs


def _example_inputs(inputs):
    import torch

    return tuple(
        torch.randn(*value) if _is_shape(value) or type(value).__name__ == "Size" else value
        for value in _as_tuple(inputs)
    )


def _saved_kind(data):
    """What PyTorch wrote: "module" (torch.jit.save: code/ entries), "package"
    (aoti_compile_and_package: data/aotinductor/ entries), "exported" (torch.export.save: an
    archive_format entry, no compiled code), "data" (torch.save), or "" (not a zip archive)."""
    try:
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    except (zipfile.BadZipFile, ValueError):
        return ""
    if any(n.startswith("code/") or "/code/" in n for n in names):
        return "module"
    if any("/data/aotinductor/" in n for n in names):
        return "package"
    if any(n == "archive_format" or n.endswith("/archive_format") for n in names):
        return "exported"
    return "data"


def compile_package(program, side, inductor_configs=None):
    """(package bytes, seconds): `program` (a torch.export.ExportedProgram) compiled with
    torch._inductor.aoti_compile_and_package (given `inductor_configs`) on this machine, timed
    apart from any benchmark."""
    import tempfile
    import time

    import torch

    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="torchscan-aoti-") as folder:
        path = os.path.join(folder, "model.pt2")
        try:
            torch._inductor.aoti_compile_and_package(program, package_path=path, inductor_configs=inductor_configs)
        except Exception as e:  # Inductor raises many kinds (a missing compiler among them)
            raise TorchScanError(
                f"{side}: torch._inductor.aoti_compile_and_package failed ({_first_line(e)}); it needs a C++ "
                "compiler (g++) and OpenMP on this machine", EXIT_BAD_INPUT) from None
        with open(path, "rb") as f:
            data = f.read()
    return data, time.perf_counter() - began


def export_and_compile(model, inputs, side, dynamic_shapes=None, inductor_configs=None):
    """(package bytes, how): `model` (an nn.Module, in eval mode for the export) exported with
    torch.export.export on the inputs (static shapes, or `dynamic_shapes` as torch.export takes
    them) and compiled here (with `inductor_configs`)."""
    import torch

    example = _example_inputs(inputs)
    if not example:
        raise TorchScanError(f"{side}: aot_inductor exports the model on its inputs; give inputs=", EXIT_BAD_INPUT)
    was_training = model.training
    model.eval()
    try:
        program = torch.export.export(model, example, dynamic_shapes=dynamic_shapes)
    except Exception as e:  # export raises many kinds
        field = "dynamic_shapes" if dynamic_shapes is not None else side
        raise TorchScanError(f"{field}: torch.export.export failed ({_first_line(e)})", EXIT_BAD_INPUT) from None
    finally:
        model.train(was_training)
    data, seconds = compile_package(program, side, inductor_configs)
    shapes = "static shapes" if dynamic_shapes is None else "the dynamic_shapes given"
    return data, (f"compiled (torch.export.export on the inputs, {shapes}, then aoti_compile_and_package: "
                  f"{seconds:.1f} s on this machine, not timed)")


def _check_loads_back(data, side):
    """A ScriptModule given as is must load back as the daemon will load it: PyTorch 1.13 saves a
    module after torch.jit.optimize_for_inference (a convolution folded into MKLDNN constants)
    that it cannot load ("required keyword attribute 'value' is undefined")."""
    import torch

    try:
        torch.jit.load(io.BytesIO(data))
    except Exception as e:  # TorchScript's loader raises many kinds
        message = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
        hint = ("; a module saved after torch.jit.optimize_for_inference cannot be loaded back by this PyTorch: "
                "pass the module before it with candidate_transform=\"optimize_for_inference\""
                if "required keyword attribute 'value' is undefined" in str(e) else "")
        raise TorchScanError(f"{side}: the ScriptModule does not load back after torch.jit.save ({message}){hint}",
                             EXIT_BAD_INPUT) from None


def _first_line(error):
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _trace(model, example, script_error, side):
    """(traced module, how): torch.jit.trace strictly, then with strict=False, which takes a module
    whose output is a dict or a list (their structure is then fixed by the example inputs)."""
    import torch

    try:
        return torch.jit.trace(model, example), "traced (torch.jit.trace on the inputs: torch.jit.script failed)"
    except Exception as strict_error:  # tracing raises many kinds
        try:
            return (torch.jit.trace(model, example, strict=False),
                    "traced (torch.jit.trace(strict=False) on the inputs: torch.jit.script and strict tracing failed)")
        except Exception:
            raise TorchScanError(
                f"{side}: neither torch.jit.script ({_first_line(script_error)}) nor torch.jit.trace "
                f"({_first_line(strict_error)}) could make a TorchScript module of it",
                EXIT_BAD_INPUT,
            ) from None


def _read(path, side):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise TorchScanError(f"{side}: cannot read {path}: {e.strerror}", EXIT_BAD_INPUT) from None


_HOW_TO_SAVE = ("save one with torch.jit.save(torch.jit.script(model), PATH), compile one with "
                "torch._inductor.aoti_compile_and_package(torch.export.export(model, inputs), package_path=PATH), or "
                "pass the nn.Module itself")


def model_spec(model, inputs, side):
    """(ModelSpec, how) for `model`; `side` ("baseline", "candidate", "model") names it in errors."""
    spec = workload_pb2.ModelSpec()
    if isinstance(model, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(model))
        data = _read(path, side)
        kind = _saved_kind(data)
        if kind == "module":
            spec.torchscript.module_bytes, spec.torchscript.source_name = data, path
            return spec, "file"
        if kind == "package":
            spec.aot_inductor.package_bytes, spec.aot_inductor.source_name = data, path
            return spec, "file (AOTInductor package)"
        if kind == "exported":
            import torch

            data, seconds = compile_package(torch.export.load(path), side)
            spec.aot_inductor.package_bytes = data
            spec.aot_inductor.source_name = f"python: {path} compiled by torch {torch.__version__}"
            return spec, f"compiled (the exported program in {path}, aoti_compile_and_package: {seconds:.1f} s, not timed)"
        what = ("holds data saved with torch.save (a tensor, a state_dict or a pickled nn.Module), not a model"
                if kind == "data" else "is not a TorchScript module or an AOTInductor package (both are zip archives)")
        raise TorchScanError(f"{side}: {path} {what}; {_HOW_TO_SAVE}", EXIT_BAD_INPUT)
    if type(model).__name__ == "ExportedProgram":
        import torch

        data, seconds = compile_package(model, side)
        spec.aot_inductor.package_bytes = data
        spec.aot_inductor.source_name = f"python: ExportedProgram compiled by torch {torch.__version__}"
        return spec, f"compiled (aoti_compile_and_package of the ExportedProgram: {seconds:.1f} s, not timed)"
    module, how = module_spec(model, inputs, side)
    spec.torchscript.CopyFrom(module)
    return spec, how


def module_spec(model, inputs, side):
    """(TorchScriptSpec, how) for `model` (a module file, a ScriptModule or an nn.Module)."""
    spec = workload_pb2.TorchScriptSpec()
    if isinstance(model, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(model))
        spec.module_bytes = _read(path, side)
        kind = _saved_kind(spec.module_bytes)
        if kind != "module":
            raise TorchScanError(f"{side}: {path} is not a TorchScript module; save one with "
                                 "torch.jit.save(torch.jit.script(model), PATH)", EXIT_BAD_INPUT)
        spec.source_name = path
        return spec, "file"
    import torch

    if isinstance(model, torch.jit.ScriptModule):
        scripted, how = model, "ScriptModule as given"
    elif isinstance(model, torch.nn.Module):
        try:
            scripted, how = torch.jit.script(model), "scripted (torch.jit.script)"
        except Exception as script_error:  # TorchScript's frontend raises many kinds
            example = _example_inputs(inputs)
            if not example:
                raise TorchScanError(
                    f"{side}: torch.jit.script failed ({_first_line(script_error)}) and there are no "
                    "inputs to trace it with; give inputs=",
                    EXIT_BAD_INPUT,
                ) from None
            was_training = model.training
            model.eval()
            try:
                scripted, how = _trace(model, example, script_error, side)
            finally:
                model.train(was_training)
    else:
        raise TorchScanError(
            f"{side}: a {type(model).__name__} is not a model; give an nn.Module, a ScriptModule or a file path",
            EXIT_BAD_INPUT,
        )
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    spec.module_bytes = buffer.getvalue()
    if how == "ScriptModule as given":
        _check_loads_back(spec.module_bytes, side)
    # The version that saved it: the daemon names it beside its own when it cannot load the module.
    # A ScriptModule is named by its Python class (original_name), not RecursiveScriptModule.
    name = getattr(model, "original_name", "") or type(model).__name__
    spec.source_name = f"python: {name}, {how}, saved by torch {torch.__version__}"
    return spec, how


def workload_spec(model, inputs, side):
    """(WorkloadSpec, how) for `model` on `inputs`."""
    workload = workload_pb2.WorkloadSpec()
    model_proto, how = model_spec(model, inputs, side)
    workload.model.CopyFrom(model_proto)
    workload.inputs.extend(input_specs(inputs))
    return workload, how


def apply_transform(workload, transform):
    """The candidate variants of the CLI (--candidate-optimize-for-inference ...), by name."""
    names = [transform] if isinstance(transform, str) else list(transform or ())
    for name in names:
        if name == "optimize_for_inference":
            workload.optimize_for_inference = True
        elif name == "freeze":
            workload.freeze = True
        elif name == "channels_last":
            workload.channels_last = True
        elif name == "bfloat16":
            workload.dtype = workload_pb2.WorkloadSpec.bfloat16
        elif name == "float16":
            workload.dtype = workload_pb2.WorkloadSpec.float16
        elif name == "per_sample":
            workload.execution_mode = workload_pb2.WorkloadSpec.per_sample
        elif name == "aot_inductor":
            pass  # the candidate's model itself: compare() compiles it
        else:
            raise TorchScanError(
                f"candidate_transform: {name!r} is not one of {', '.join(TRANSFORMS)}", EXIT_BAD_INPUT
            )
