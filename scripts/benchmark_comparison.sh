#!/usr/bin/env bash
# The guide's benchmark_comparison example: per-sample baseline vs batch candidate.
#   scripts/benchmark_comparison.sh [--model linear|resnet18|bert] [--device cpu] [--threads N]
#                                   [--min-run-time S] [--rss] [--reverse] --output DIR
# Installs what it needs (scripts/setup.sh), builds, and runs //client:benchmark_comparison.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh >&2
bazel build --ui_event_filters=-info,-debug --noshow_progress //client:benchmark_comparison //core/workloads:torchscan_rss_child >&2
exec bazel-bin/client/benchmark_comparison --rss-child "$PWD/bazel-bin/core/workloads/torchscan_rss_child" "$@"
