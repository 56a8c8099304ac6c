#!/usr/bin/env bash
# scripts/gpu_check.sh --dry-run against the programs Bazel built (the arguments): packs them
# with the libraries they link (at most 64 MiB, each resolving into the pack or torch's
# folders), then runs every step of the GPU check with device cpu and the project
# environment's torch; fails on a FAIL line or a step that did not run.
set -euo pipefail
TORCHSCAN_GPU_CHECK_PROGRAMS=$(for program in "$@"; do echo "$PWD/$program"; done)
export TORCHSCAN_GPU_CHECK_PROGRAMS
export TORCHSCAN_GPU_PYTHON=${TORCHSCAN_VENV:-/opt/torchscan/venv}/bin/python
out=$TEST_TMPDIR/gpu_check
summary=$out/result/summary.txt
if ! scripts/gpu_check.sh --dry-run "$out"; then
  echo "gpu_check --dry-run failed:" && cat "$summary" 2>/dev/null
  exit 1
fi
for step in "PASS example --rss on cpu" "PASS example on cpu" "PASS compare aa on cpu ran" \
            "PASS compare plus5 on cpu ran" "SKIP events vs host clock" "SKIP allocator peak"; do
  if ! grep -q "^$step" "$summary"; then
    echo "gpu_check --dry-run: no line \"$step\" in its summary:" && cat "$summary"
    exit 1
  fi
done
echo "gpu_check --dry-run: every step ran" && cat "$summary"
