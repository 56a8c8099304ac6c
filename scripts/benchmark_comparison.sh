#!/usr/bin/env bash
# The guide's benchmark_comparison example, through torchscan-client and a private daemon:
#   scripts/benchmark_comparison.sh [--model linear|resnet18|bert] [--device cpu] [--threads N]
#                                   [--min-run-time S] [--rss] [--reverse] --output DIR
# Installs what it needs (scripts/setup.sh), builds, puts the programs on PATH and the Python
# package `torchscan` into the project environment (scripts/install.sh /usr/local, when run
# as root; otherwise it says how), and runs `torchscan-client example`, which writes
# comparison.json and comparison.html into DIR and prints a summary.
# Set TORCHSCAN_DAEMON=ADDR to submit to a running torchscand instead.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh >&2
bazel build --ui_event_filters=-info,-debug --noshow_progress \
  //client:torchscan-client //daemon:torchscand //worker:torchscan-worker //passes:torchscan_rss_child >&2
# The README's next steps ("Your own model") call torchscan-client and `import torchscan`.
if [[ $(id -u) == 0 ]]; then
  scripts/install.sh /usr/local >&2
  echo "benchmark_comparison: torchscan-client is on PATH (/usr/local/bin), and ${TORCHSCAN_VENV:-/opt/torchscan/venv}/bin/python can import torchscan" >&2
else
  echo "benchmark_comparison: not root, so nothing was installed: run bazel-bin/client/torchscan-client, or" \
    "scripts/install.sh PREFIX to put the programs in PREFIX/bin and the Python package into the project environment" >&2
fi
daemon=()
[[ -n "${TORCHSCAN_DAEMON:-}" ]] && daemon=(--daemon "$TORCHSCAN_DAEMON")
exec bazel-bin/client/torchscan-client "${daemon[@]}" example "$@"
