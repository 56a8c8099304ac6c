#!/usr/bin/env bash
# Installs what the tests need (scripts/setup.sh), then builds and runs every test:
#   scripts/test.sh [extra bazel test arguments]
# Prints Bazel's summary, then (scripts/count_test_results.py, from each test case's own
# result) the skipped tests with their reasons, the failed ones, and one closing line
# "tests: N passed, N failed, N skipped". Exits non-zero when a test failed, did not build or
# did not run, or when a test that must run here was skipped: only targets tagged `may_skip`
# (tests that need a CUDA LibTorch or a GPU) may skip. CI (.ci/run) runs this script.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
events=$(mktemp --tmpdir torchscan-test-events.XXXXXX.json)
trap 'rm -f "$events"' EXIT
rc=0
bazel test //... --build_event_json_file="$events" "$@" || rc=$?
counted=0
python3 scripts/count_test_results.py "$events" || counted=$?
exit $(( rc != 0 ? rc : counted ))
