#!/usr/bin/env bash
# Renders every fixture page (tests/browser/render_fixture_pages) and checks it in headless
# Chromium with no network (tests/browser/browser_check.py). Screenshots go to
# $TEST_UNDECLARED_OUTPUTS_DIR (bazel-testlogs/tests/browser/browser_test/test.outputs/).
# Skipped, saying so, only when /usr/bin/chromium is absent (scripts/setup.sh installs it).
set -euo pipefail

chromium=/usr/bin/chromium
if [[ ! -x "$chromium" ]]; then
  echo "SKIPPED: $chromium is absent; run scripts/setup.sh to install Debian's chromium"
  exit 0
fi
python=/usr/bin/python3
[[ -x "$python" ]] || python=python3

pages=$(mktemp -d "${TEST_TMPDIR:-/tmp}/pages.XXXXXX")
tests/browser/render_fixture_pages "$pages"
screenshots=${TEST_UNDECLARED_OUTPUTS_DIR:-$pages}
exec "$python" tests/browser/browser_check.py --chromium "$chromium" --screenshots "$screenshots" \
  ${XML_OUTPUT_FILE:+--xml "$XML_OUTPUT_FILE"} "$pages"/*.html
