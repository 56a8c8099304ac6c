#!/usr/bin/env bash
# Runs one deploy check program (tests/deploy/check_*.py) with Debian's python3, which has
# PyYAML (python3-yaml, installed by scripts/setup.sh):
#   run_check.sh CHECK.py [ARGS...]
# Bazel's runfiles root is the working folder, so deploy/ and scripts/ paths are relative.
# The JUnit file goes to $XML_OUTPUT_FILE so scripts/test.sh counts each check.
set -euo pipefail
python=/usr/bin/python3
if ! "$python" -c 'import yaml' 2>/dev/null; then
  echo "FAIL: $python cannot import yaml; run scripts/setup.sh (it installs python3-yaml)" >&2
  exit 1
fi
exec "$python" "$@" ${XML_OUTPUT_FILE:+--xml "$XML_OUTPUT_FILE"}
