"""The Slurm batch script run for real, with the real worker, outside Slurm (the script then
starts the worker directly instead of through srun).

Usage: check_slurm.py [--xml FILE]   (run by bazel test, from the runfiles root)

  - its #SBATCH header asks for one whole node, and inside an allocation it uses srun --exclusive
  - deploy/slurm/linear-job.json: exit 0; report.json is a measurement with timing blocks and
    a peak RSS (the job asks for it), report.html is written, spec.json is the job file
  - a TorchScript job without inputs: exit 3 (workload error) with the worker's reason
  - an output folder already used: exit 2 naming OUTPUT_DIR; programs missing: exit 2
    naming TORCHSCAN_BIN
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from checklib import Checks, program, read_text, xml_flag

SCRIPT = "deploy/slurm/torchscan-job.sbatch"
JOB = "deploy/slurm/linear-job.json"


def run_script(bin_dir, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    env["TORCHSCAN_BIN"] = bin_dir
    return subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, env=env, timeout=600)


def check_header():
    text = read_text(SCRIPT)
    header = dict(re.findall(r"^#SBATCH --([\w-]+)(?:=(\S+))?", text, re.M))
    if "exclusive" not in header or header.get("nodes") != "1":
        return f"#SBATCH must ask for --exclusive and --nodes=1, found {header}"
    if not re.search(r"launch=\(srun --exclusive\b", text):
        return "inside an allocation the worker must start with srun --exclusive"
    return None


def check_success(bin_dir, scratch):
    out = os.path.join(scratch, "linear")
    run = run_script(bin_dir, JOB, out)
    if run.returncode != 0:
        return f"exit {run.returncode}: {run.stderr.strip()}"
    report = json.load(open(os.path.join(out, "report.json")))
    blocks = report.get("timing", {}).get("blocks", [])
    if report.get("name") != "measurement" or len(blocks) < 10:
        return f"report.json is not a measurement with at least 10 timing blocks ({len(blocks)} blocks)"
    rss = [t for t in report.get("totals", []) if t.get("name") == "peak_rss_bytes"]
    if not rss or not rss[0].get("value", 0) > 0:
        return "report.json has no peak_rss_bytes although the job asks for rss"
    if os.path.getsize(os.path.join(out, "report.html")) < 1000:
        return "report.html is missing or nearly empty"
    if json.load(open(os.path.join(out, "spec.json"))) != json.load(open(JOB)):
        return "spec.json is not the job file"
    median = float(report["timing"]["summary"].get("median_s", "nan"))
    print(f"  linear job: {len(blocks)} blocks, median {median * 1e6:.1f} us per call, "
          f"peak RSS {rss[0]['value'] / 2**20:.1f} MiB")
    return None


def check_failure(bin_dir, scratch):
    job = os.path.join(scratch, "no-inputs.json")
    with open(job, "w") as f:
        json.dump({"measure": {"workload": {"model": {"torchscript": {"path": "/nonexistent/model.pt"}}}}}, f)
    run = run_script(bin_dir, job, os.path.join(scratch, "failing"))
    if run.returncode != 3 or "workload error" not in run.stderr or "torchscan-worker:" not in run.stderr:
        return f"expected exit 3 with the worker's reason, got {run.returncode}: {run.stderr.strip()}"
    return None


def check_used_folder(bin_dir, scratch):
    out = os.path.join(scratch, "used")
    os.makedirs(out)
    open(os.path.join(out, "result.json"), "w").close()
    run = run_script(bin_dir, JOB, out)
    if run.returncode != 2 or "OUTPUT_DIR" not in run.stderr:
        return f"expected exit 2 naming OUTPUT_DIR, got {run.returncode}: {run.stderr.strip()}"
    return None


def check_missing_programs(scratch):
    run = run_script(os.path.join(scratch, "no-such-bin"), JOB, os.path.join(scratch, "nobin"))
    if run.returncode != 2 or "TORCHSCAN_BIN" not in run.stderr:
        return f"expected exit 2 naming TORCHSCAN_BIN, got {run.returncode}: {run.stderr.strip()}"
    return None


def main(argv):
    xml_path = xml_flag(argv)
    scratch = tempfile.mkdtemp(prefix="torchscan-slurm.")
    bin_dir = os.path.join(scratch, "bin")  # as scripts/install.sh lays the programs out
    os.makedirs(bin_dir)
    for name in ("torchscan-worker", "torchscan_rss_child", "torchscan-client"):
        os.symlink(program(name), os.path.join(bin_dir, name))
    checks = Checks("slurm_job_test")
    checks.run("#SBATCH asks for one exclusive node; srun --exclusive inside Slurm", check_header)
    checks.run("linear-job.json: report.json, report.html and spec.json in the output folder", check_success,
               bin_dir, scratch)
    checks.run("a failing job exits 3 with the worker's reason", check_failure, bin_dir, scratch)
    checks.run("a used output folder is refused (exit 2)", check_used_folder, bin_dir, scratch)
    checks.run("missing programs are refused naming TORCHSCAN_BIN (exit 2)", check_missing_programs, scratch)
    shutil.rmtree(scratch, ignore_errors=True)
    return checks.finish(xml_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
