#!/usr/bin/env bash
# The guide's benchmark_comparison example, through torchscan-client and a private daemon:
#   scripts/benchmark_comparison.sh [--model linear|resnet18|bert] [--device cpu] [--threads N]
#                                   [--min-run-time S] [--rss] [--reverse] --output DIR
# Installs what it needs (scripts/setup.sh), builds, and runs `torchscan-client example`,
# which writes comparison.json and comparison.html into DIR and prints a summary.
# Set TORCHSCAN_DAEMON=ADDR to submit to a running torchscand instead.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh >&2
bazel build --ui_event_filters=-info,-debug --noshow_progress \
  //client:torchscan-client //daemon:torchscand //worker:torchscan-worker //passes:torchscan_rss_child >&2
daemon=()
[[ -n "${TORCHSCAN_DAEMON:-}" ]] && daemon=(--daemon "$TORCHSCAN_DAEMON")
exec bazel-bin/client/torchscan-client "${daemon[@]}" example "$@"
