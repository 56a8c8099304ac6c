"""The GPU check's Python half (scripts/gpu_check.sh), run with the GPU machine's torch:

  gpu_check_models.py save DIR                   chain20.pt, its byte-identical copy, chain21.pt
  gpu_check_models.py verdict COMPARISON_JSON    "label L, claim C, median ratio R"
  gpu_check_models.py peak REPORT_JSON MODEL DEVICE BATCH
                                                 a summary line: TorchScan's allocator peak of one
                                                 call against torch.cuda.max_memory_allocated
"""
import json
import os
import shutil
import sys

import torch


def chain(layers):
    """`layers` relu(Linear(1024, 1024)) layers, weights from seed 0: 21 layers are +5 % of 20."""
    torch.manual_seed(0)
    return torch.nn.Sequential(*[m for _ in range(layers) for m in (torch.nn.Linear(1024, 1024), torch.nn.ReLU())]).eval()


def save(folder):
    for layers in (20, 21):
        torch.jit.script(chain(layers)).save(os.path.join(folder, f"chain{layers}.pt"))
    shutil.copyfile(os.path.join(folder, "chain20.pt"), os.path.join(folder, "chain20_copy.pt"))


def verdict(path):
    with open(path) as f:
        comparison = json.load(f)
    paired = comparison.get("evidence", {}).get("paired", {})
    return "label {}, claim {}, median ratio {}".format(
        comparison.get("latency_change", "unavailable"), paired.get("claim", "no_claim"),
        "%.4f" % paired["median_ratio"] if "median_ratio" in paired else "none")


def peak(report_path, model_path, device, batch):
    with open(report_path) as f:
        report = json.load(f)
    metrics = {m["name"]: m for m in report.get("totals", []) if "value" in m}
    if device == "cpu":
        value = metrics.get("tensor_peak_bytes", {}).get("value")
        return "SKIP allocator peak vs torch.cuda.max_memory_allocated: a CPU job (tensor_peak_bytes {})".format(value)
    ours = metrics.get("cuda_allocator_peak_allocated_bytes", {}).get("value")
    if ours is None:
        return "FAIL allocator peak: no cuda_allocator_peak_allocated_bytes in " + report_path
    model = torch.jit.load(model_path, map_location=device).eval()
    x = torch.randn(int(batch), 1024, device=device)
    with torch.inference_mode():
        model(x)  # warm, as TorchScan's trial call
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        model(x)
        torch.cuda.synchronize(device)
    theirs = torch.cuda.max_memory_allocated(device)
    ratio = ours / theirs if theirs else float("inf")
    return "{} allocator peak: TorchScan {:.0f} bytes, torch.cuda.max_memory_allocated {} bytes, ratio {:.3f}".format(
        "PASS" if abs(ratio - 1) <= 0.1 else "FAIL", ours, theirs, ratio)


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "save" and len(sys.argv) == 3:
        save(sys.argv[2])
    elif command == "verdict" and len(sys.argv) == 3:
        print(verdict(sys.argv[2]))
    elif command == "peak" and len(sys.argv) == 6:
        print(peak(*sys.argv[2:]))
    else:
        sys.exit(__doc__)
