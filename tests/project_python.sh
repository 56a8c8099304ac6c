#!/usr/bin/env bash
# Runs a Python program with the project environment's Python (scripts/setup.sh makes it; it has
# the pinned torch, grpcio and protobuf): $TORCHSCAN_VENV/bin/python, by default
# /opt/torchscan/venv/bin/python. Used by the Bazel targets whose programs save or run models:
#   sh_test(srcs = ["//tests:project_python.sh"], args = ["$(location program.py)"], ...)
set -euo pipefail
python=${TORCHSCAN_VENV:-/opt/torchscan/venv}/bin/python
if [[ ! -x "$python" ]]; then
  echo "project_python: $python is missing: run scripts/setup.sh (it makes the project environment)" >&2
  exit 2
fi
exec "$python" "$@"
