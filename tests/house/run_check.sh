#!/usr/bin/env bash
# Runs one house check (check_house.py MODE --self-test FILE...) with Debian's python3 over the
# production sources Bazel hands it (each package's :sources filegroup).
set -euo pipefail
exec /usr/bin/python3 tests/house/check_house.py "$@"
