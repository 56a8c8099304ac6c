#!/opt/torchscan/venv/bin/python
"""How much a paired ratio varies between processes and between builds of a module (issue 25, item 2).

A measurement, not a test. A compare pairs rounds inside one worker, which cancels drift
between rounds but not what is fixed for the worker: where each built module's weights and
code landed. This asks where that fixed part lives, so that a compare knows what to repeat:
  - within a build: the spread of the per-round ratios of one pair of built modules;
  - between builds in one process: each build pair loads both files again
    (torch.jit.load), in the same process;
  - between processes: each process is a fresh interpreter, as each job's worker is.
Workload: a chain of 50 tanh(Linear(256,256)) layers on a 64x256 input (the validity
benchmark's two-file case), 1 intra-op thread, inference mode. Two cases, alternating build
by build: "copies" (two byte-identical files under different names) and "same file" (one
file loaded twice). Per build: warm-up, then --rounds ABBA rounds of --calls calls per run;
a round's ratio is the second file's time over the first's.

  bazel build //benchmarks:layout_variance_benchmark &&
  bazel-bin/benchmarks/layout_variance_benchmark [--processes 8] [--builds 6] [--rounds 12]
      [--calls 2] [--csv FILE] [--quick]

Prints, per case, standard deviations of log ratios (in %): of the rounds within a build; of
a build's median from its own rounds (bootstrap); of the build medians within a process, and
what is left of it once that sampling is taken out (the builds' own effect); of the process
means, and what is left once the builds' spread is taken out (the processes' own effect).
Runs with the project environment's torch (its #! line: /opt/torchscan/venv/bin/python). --quick: 2 processes x 2 builds x 2 rounds,
to check that it runs.
"""
import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chain_module  # noqa: E402  (beside this file, in the source tree and in runfiles)

CASES = ("copies", "same file")


def make_files(folder):
    first = chain_module.save_chain(folder, 50)
    copy = os.path.join(folder, "chain50_copy.pt")
    with open(first, "rb") as src, open(copy, "wb") as dst:
        dst.write(src.read())
    return first, copy


def child(args):
    import torch
    torch.set_num_threads(1)
    x = torch.randn(64, 256)
    out = []

    def run(module):
        start = time.perf_counter()
        for _ in range(args.calls):
            module(x)
        return time.perf_counter() - start

    with torch.inference_mode():
        for build in range(args.builds):
            for case in CASES:
                paths = (args.first, args.copy) if case == "copies" else (args.first, args.first)
                a, b = torch.jit.load(paths[0]).eval(), torch.jit.load(paths[1]).eval()
                for _ in range(3):
                    run(a), run(b)
                ratios = []
                for r in range(args.rounds):
                    if r % 2 == 0:
                        ta = run(a)
                        tb = run(b)
                    else:
                        tb = run(b)
                        ta = run(a)
                    ratios.append(tb / ta)
                out.append({"case": case, "build": build, "ratios": ratios})
                del a, b
    print(json.dumps(out))


def bootstrap_median_variance(logs, rng, draws=400):
    medians = [statistics.median(rng.choices(logs, k=len(logs))) for _ in range(draws)]
    return statistics.variance(medians)


def sd_percent(values):
    return 100 * statistics.stdev(values) if len(values) > 1 else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--builds", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--calls", type=int, default=2)
    parser.add_argument("--csv", default="")
    parser.add_argument("--quick", action="store_true", help="2 processes x 2 builds x 2 rounds: a smoke run")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--first", help=argparse.SUPPRESS)
    parser.add_argument("--copy", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return 0
    if args.quick:
        args.processes, args.builds, args.rounds = 2, 2, 2
    if min(args.processes, args.builds) < 2 or args.rounds < 2 or args.calls < 1:
        print("layout_variance_benchmark: --processes and --builds must be >= 2, --rounds >= 2, --calls >= 1", file=sys.stderr)
        return 2
    folder = tempfile.mkdtemp(prefix="layout_variance_benchmark-")
    first, copy = make_files(folder)
    rows = []  # (process, case, build, log ratios)
    for process in range(args.processes):
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", "--first", first, "--copy", copy,
                               "--builds", str(args.builds), "--rounds", str(args.rounds), "--calls", str(args.calls)],
                              capture_output=True, text=True, check=True)
        for entry in json.loads(done.stdout):
            rows.append((process, entry["case"], entry["build"], [math.log(r) for r in entry["ratios"]]))
        print(f"  process {process + 1}/{args.processes} done", file=sys.stderr)
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("process,case,build,round_ratios...\n")
            for process, case, build, logs in rows:
                f.write(f"{process},{case},{build}," + ",".join(f"{math.exp(v):.6f}" for v in logs) + "\n")
    print(f"layout_variance_benchmark: 50-layer tanh(Linear(256,256)) chain on 64x256, 1 thread; {args.processes} processes x "
          f"{args.builds} builds x {args.rounds} ABBA rounds of {args.calls} calls per run")
    for case in CASES:
        mine = [r for r in rows if r[1] == case]
        within_round = statistics.mean(statistics.stdev(logs) for _, _, _, logs in mine)
        # The sampling variance of each build's median from its own rounds (bootstrap), so that
        # what is left of the build medians' spread is the builds' own effect.
        sampling = statistics.mean(bootstrap_median_variance(logs, random.Random(build)) for _, _, build, logs in mine)
        build_medians = {}
        for process, _, build, logs in mine:
            build_medians.setdefault(process, []).append(statistics.median(logs))
        within_process = statistics.mean(statistics.variance(v) for v in build_medians.values())
        build_effect = max(within_process - sampling, 0.0)
        process_means = [statistics.mean(v) for v in build_medians.values()]
        # One-way random effects: variance of process means = process effect + within / builds.
        process_effect = max(statistics.variance(process_means) - within_process / args.builds, 0.0)
        all_builds = [m for v in build_medians.values() for m in v]
        print(f"{case:9s}: round ratios within a build SD {100 * within_round:.2f} %; a build median's own sampling "
              f"SD {100 * math.sqrt(sampling):.2f} %; build medians within a process SD {100 * math.sqrt(within_process):.2f} % "
              f"-> build effect SD {100 * math.sqrt(build_effect):.2f} %; process means SD "
              f"{sd_percent(process_means):.2f} % -> process effect SD {100 * math.sqrt(process_effect):.2f} %; "
              f"build medians {100 * (math.exp(min(all_builds)) - 1):+.2f} % .. {100 * (math.exp(max(all_builds)) - 1):+.2f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
