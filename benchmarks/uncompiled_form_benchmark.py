#!/opt/torchscan/venv/bin/python
"""Which uncompiled form a compiled-against-uncompiled compare should time (issue 42, item 4).

A measurement, not a test. `torchscan.compare(model, candidate_transform="aot_inductor")` times
an AOTInductor package against the same module uncompiled, and the daemon runs C++ only: the
uncompiled side must be a form LibTorch loads. Candidates: TorchScript (torch.jit.script), or an
exported program run by LibTorch's own runtime (torch/nativert), if this torch ships one.
What users compare against is eager Python, so each form is timed beside eager for the same
module with torch.utils.benchmark's blocked_autorange, in one process, alternating, and the
ratios to eager are printed with the package's:
  eager         model(x) under torch.inference_mode
  torchscript   torch.jit.script(model) (what TorchScan sends for an nn.Module)
  package       torch._inductor.aoti_load_package of the compiled package
and whether this torch has headers for nativert (torch/include/torch/nativert).

  bazel build //benchmarks:uncompiled_form_benchmark &&
  bazel-bin/benchmarks/uncompiled_form_benchmark [--rounds 5] [--threads 2] [--quick]

Models: the README's MLP (Linear 256-512-256 on 64x256) and a small CNN (two 3x3
convolutions on 8x3x32x32). Runs with the project environment's torch (its #! line).
--quick: the CNN alone (it compiles in seconds), 1 round of 0.05 s, to check that it runs.
"""
import argparse
import os
import statistics
import tempfile
import time

import torch
import torch.utils.benchmark as benchmark


class MeanPool(torch.nn.Module):
    def forward(self, x):
        return x.mean(dim=(2, 3))


def mlp():
    """The README's MLP: Linear(256, 512), ReLU, Linear(512, 256)."""
    return torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256))


def cnn():
    """Two 3x3 convolutions (3 -> 16 -> 16 channels) with ReLUs, then a mean over the image."""
    return torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(),
                               torch.nn.Conv2d(16, 16, 3, padding=1), torch.nn.ReLU(), MeanPool())


def median_s(fn, x, seconds):
    timer = benchmark.Timer(stmt="fn(x)", globals={"fn": fn, "x": x})
    with torch.inference_mode():
        return timer.blocked_autorange(min_run_time=seconds).median


def forms(model, x, folder):
    scripted = torch.jit.script(model)
    path = os.path.join(folder, f"model{len(os.listdir(folder))}.pt2")
    began = time.perf_counter()
    torch._inductor.aoti_compile_and_package(torch.export.export(model, (x,)), package_path=path)
    compile_s = time.perf_counter() - began
    package = torch._inductor.aoti_load_package(path)
    return {"eager": model, "torchscript": scripted, "package": package}, compile_s


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=0.5, help="blocked_autorange min_run_time per form and round")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true")
    a = parser.parse_args()
    if a.quick:
        a.rounds, a.seconds = 1, 0.05
    torch.set_num_threads(a.threads)
    nativert = os.path.isdir(os.path.join(os.path.dirname(torch.__file__), "include", "torch", "nativert"))
    print(f"torch {torch.__version__}, {a.threads} threads; nativert headers in this torch: {'yes' if nativert else 'no'}")
    with tempfile.TemporaryDirectory() as folder:
        models = [("MLP", mlp(), torch.randn(64, 256)), ("CNN", cnn(), torch.randn(8, 3, 32, 32))]
        for name, model, x in models[1:] if a.quick else models:
            model.eval()
            made, compile_s = forms(model, x, folder)
            times = {form: [] for form in made}
            for _ in range(a.rounds):
                for form, fn in made.items():  # alternating, one process
                    times[form].append(median_s(fn, x, a.seconds))
            eager = statistics.median(times["eager"])
            print(f"{name}: compiled in {compile_s:.1f} s")
            for form, values in times.items():
                m = statistics.median(values)
                print(f"  {form:12s} median {m * 1e6:9.1f} us  / eager {m / eager:5.2f}x  "
                      f"(rounds {min(values) * 1e6:.1f}-{max(values) * 1e6:.1f} us)")


if __name__ == "__main__":
    main()
