#!/opt/torchscan/venv/bin/python
"""Does TorchScan's median agree with torch.utils.benchmark's on the same module (issue 25, item 6)?

A measurement, not a test. Alternating pair by pair (who goes first alternates too), each in
a fresh process as a user would run them:
  - ours:   `torchscan-client measure --torchscript chain50.pt --input 64x256 --threads 1
            --min-run-time S --json` (a private daemon and a fresh worker each time);
  - theirs: a fresh python3 (OPENBLAS_NUM_THREADS=1: see ONE_THREAD) that loads the same file with torch.jit.load, sets one thread and
            inference mode, calls it 3 times (TorchScript optimizes a method on its second call;
            ours warms up too) and takes Timer("m(x)").blocked_autorange(min_run_time=S).median.
Workload: benchmarks/chain_module.py's 50-layer tanh(Linear(256,256)) chain, a 64x256 float
input (ours generates it; theirs uses torch.randn: the time does not depend on the values).

  bazel build //benchmarks:agreement_benchmark //client:torchscan-client //daemon:torchscand
      //worker:torchscan-worker && bazel-bin/benchmarks/agreement_benchmark
      bazel-bin/client/torchscan-client [--pairs 8] [--min-run-time 0.2] [--quick]

Prints each pair's medians and ratio (ours / theirs), the median ratio, and the spread between
processes of each tool (the standard deviation of log medians, in %): the two agree when the
median ratio lies within that spread (the larger of the two; a tool cannot be held to agree
more closely than it agrees with itself from one process to the next). Runs with
the project environment's torch (its #! line: /opt/torchscan/venv/bin/python). --quick: 2 pairs at 0.02 s, to check that it runs.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chain_module  # noqa: E402  (beside this file, in the source tree and in runfiles)

THEIRS = r"""
import sys, torch
import torch.utils.benchmark as benchmark
torch.set_num_threads(1)
m = torch.jit.load(sys.argv[1]).eval()
x = torch.randn(64, 256)
with torch.inference_mode():
    for _ in range(3):  # TorchScript's profiling executor optimizes on the second call; ours warms up too
        m(x)
    t = benchmark.Timer(stmt="m(x)", globals={"m": m, "x": x}, num_threads=1)
    print(t.blocked_autorange(min_run_time=float(sys.argv[2])).median)
"""


def find_median_s(value):
    """The report's timing.summary median, whatever the JSON's field spelling."""
    if isinstance(value, dict):
        summary = value.get("summary")
        if isinstance(summary, dict):
            for key in ("median_s", "medianS"):
                if key in summary:
                    return float(summary[key])
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    for child in children:
        found = find_median_s(child)
        if found is not None:
            return found
    return None


def ours(client, module, min_run_time):
    output = os.path.join(os.path.dirname(module), "ours")  # replaced each time (--force)
    done = subprocess.run([client, "--json", "measure", "--torchscript", module, "--input", "64x256", "--threads", "1",
                           "--min-run-time", str(min_run_time), "--output", output, "--force"],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"agreement_benchmark: torchscan-client exited {done.returncode}: {done.stderr.strip()}")
    median = find_median_s(json.loads(done.stdout))
    if median is None:
        raise SystemExit("agreement_benchmark: no timing.summary.median_s in the client's --json output")
    return median


# torch.set_num_threads(1) (Timer's num_threads) leaves OpenBLAS's own pool at the CPU count:
# measured here, the chain then ran 5.6-5.8 ms with 2 threads in the process against 6.8-7.2 ms
# with OPENBLAS_NUM_THREADS=1 (1 thread), where ours, whose one thread is one, ran 6.7-8.4 ms.
# One thread on both sides is the like-for-like comparison.
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def theirs(module, min_run_time):
    done = subprocess.run([sys.executable, "-c", THEIRS, module, str(min_run_time)], capture_output=True, text=True,
                          timeout=300, check=True, env={**os.environ, **ONE_THREAD})
    return float(done.stdout.strip().splitlines()[-1])


def sd_percent(values):
    logs = [math.log(v) for v in values]
    return 100 * statistics.stdev(logs) if len(logs) > 1 else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("client", help="torchscan-client (it starts a private torchscand found beside it)")
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--min-run-time", type=float, default=0.2)
    parser.add_argument("--quick", action="store_true", help="2 pairs at 0.02 s: a smoke run")
    args = parser.parse_args()
    if args.quick:
        args.pairs, args.min_run_time = 2, 0.02
    if args.pairs < 2 or args.min_run_time <= 0:
        print("agreement_benchmark: --pairs must be >= 2 and --min-run-time > 0", file=sys.stderr)
        return 2
    module = chain_module.save_chain(tempfile.mkdtemp(prefix="agreement_benchmark-"), 50)
    rows = []
    for pair in range(args.pairs):
        if pair % 2 == 0:
            a = ours(args.client, module, args.min_run_time)
            b = theirs(module, args.min_run_time)
        else:
            b = theirs(module, args.min_run_time)
            a = ours(args.client, module, args.min_run_time)
        rows.append((a, b))
        print(f"  pair {pair + 1}/{args.pairs}: ours {1e3 * a:.3f} ms, torch.utils.benchmark {1e3 * b:.3f} ms, "
              f"ratio {a / b:.3f}", file=sys.stderr)
    ratios = [a / b for a, b in rows]
    median_ratio = math.exp(statistics.median(math.log(r) for r in ratios))
    spread = max(sd_percent([a for a, _ in rows]), sd_percent([b for _, b in rows]))
    within = abs(100 * math.log(median_ratio)) <= spread
    print(f"agreement_benchmark: 50-layer tanh(Linear(256,256)) chain on 64x256, 1 thread, min_run_time "
          f"{args.min_run_time} s, {args.pairs} alternating pairs, each a fresh process")
    print(f"  ours (torchscan-client measure): medians {1e3 * min(a for a, _ in rows):.3f}-"
          f"{1e3 * max(a for a, _ in rows):.3f} ms, between processes SD {sd_percent([a for a, _ in rows]):.2f} %")
    print(f"  theirs (blocked_autorange):      medians {1e3 * min(b for _, b in rows):.3f}-"
          f"{1e3 * max(b for _, b in rows):.3f} ms, between processes SD {sd_percent([b for _, b in rows]):.2f} %")
    print(f"  ours / theirs: median {median_ratio:.3f} ({100 * (median_ratio - 1):+.2f} %), pairs "
          f"{min(ratios):.3f}-{max(ratios):.3f}; {'within' if within else 'beyond'} the between-process spread "
          f"({spread:.2f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
