#!/opt/torchscan/venv/bin/python
"""The guide's linear comparison done the Python way: the peer time_to_verdict_benchmark races.

Same work as `torchscan-client example --rss` (the guide's benchmark_comparison, linear model):
Linear(128, 128) on 32x128 inputs, one sample at a time (torch.stack of per-row forwards)
versus one batch, 1 intra-op thread, seed 0, inference mode. For each run:
  - timing: torch.utils.benchmark.Timer(...).blocked_autorange(min_run_time=--min-run-time)
    (its median and IQR);
  - profile: torch.profiler over one call, operators and FLOPs (record_shapes, with_flops),
    separate from timing;
  - with --rss: a fresh child process that imports torch, builds the model and input, makes
    100 calls and prints its peak RSS (VmHWM);
then the output check (torch.testing.assert_close, rtol 1e-4, atol 1e-5) and
<output>/comparison.json with the figures. Run with the project environment's torch (scripts/setup.sh
installs it): /opt/torchscan/venv/bin/python benchmarks/python_peer/linear_comparison_peer.py --rss --output DIR.
A benchmark's peer, not part of TorchScan: exit 0 when done, 1 when the check fails, 2 for bad
arguments.
"""
import argparse
import json
import pathlib
import subprocess
import sys

import torch
import torch.utils.benchmark

SETUP = """
import torch
torch.set_num_threads(1)
torch.manual_seed(0)
model = torch.nn.Linear(128, 128).eval()
inputs = torch.randn(32, 128)

@torch.inference_mode()
def baseline():
    return torch.stack([model(row) for row in inputs])

@torch.inference_mode()
def candidate():
    return model(inputs)
"""

RSS_CHILD = SETUP + """
import sys
run = baseline if sys.argv[1] == "baseline" else candidate
for _ in range(100):
    run()
with open("/proc/self/status") as status:
    print(next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:")))
"""


def timing(fn, min_run_time):
    m = torch.utils.benchmark.Timer(stmt="fn()", globals={"fn": fn}).blocked_autorange(min_run_time=min_run_time)
    return {"median_s": m.median, "iqr_s": m.iqr, "blocks": len(m.times), "calls_per_block": m.number_per_run}


def profile(fn):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True,
                                with_flops=True) as prof:
        fn()
    events = prof.key_averages()
    return {"operators": len(events), "flops": sum(e.flops for e in events if e.flops)}


def peak_rss(name):
    out = subprocess.run([sys.executable, "-c", RSS_CHILD, name], check=True, capture_output=True, text=True)
    return int(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", required=True, help="folder for comparison.json (created when missing)")
    parser.add_argument("--rss", action="store_true", help="peak RSS of each run in a fresh child process")
    parser.add_argument("--min-run-time", type=float, default=0.2, help="seconds of timed work per run")
    args = parser.parse_args()
    if not args.min_run_time > 0:
        parser.error("--min-run-time must be above 0")
    scope = {}
    exec(SETUP, scope)  # the same model and inputs the RSS children build
    runs = {}
    for name in ("baseline", "candidate"):
        runs[name] = {"timing": timing(scope[name], args.min_run_time), "profile": profile(scope[name])}
    if args.rss:
        for name in ("baseline", "candidate"):
            runs[name]["peak_rss_bytes"] = peak_rss(name)
    check = "passed"
    try:
        torch.testing.assert_close(scope["baseline"](), scope["candidate"](), rtol=1e-4, atol=1e-5)
    except AssertionError as e:
        check = "failed: " + str(e).splitlines()[0]
    out = pathlib.Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    (out / "comparison.json").write_text(json.dumps({"runs": runs, "output_check": check}, indent=2), encoding="utf-8")
    return 0 if check == "passed" else 1


if __name__ == "__main__":
    sys.exit(main())
