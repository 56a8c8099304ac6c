#!/usr/bin/env bash
# Renders every fixture page (tests/browser/render_fixture_pages) and checks it in headless
# Chromium with no network (tests/browser/browser_check.py). Screenshots go to
# $TEST_UNDECLARED_OUTPUTS_DIR (bazel-testlogs/tests/browser/browser_test/test.outputs/).
# Chromium is /usr/bin/chromium (scripts/setup.sh installs it), or $TORCHSCAN_TEST_CHROMIUM.
# Without it the test reports one skipped case in $XML_OUTPUT_FILE, the file Bazel keeps, and
# exits 0: scripts/test.sh counts it as skipped, and fails the run since this test must run.
set -euo pipefail

chromium=${TORCHSCAN_TEST_CHROMIUM:-/usr/bin/chromium}
if [[ ! -x "$chromium" ]]; then
  reason="$chromium is absent; run scripts/setup.sh to install Debian's chromium"
  echo "SKIPPED: $reason"
  if [[ -n "${XML_OUTPUT_FILE:-}" ]]; then
    escaped=$(sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/"/\&quot;/g' <<<"$reason")
    cat >"$XML_OUTPUT_FILE" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" failures="0" errors="0" skipped="1" name="browser_test">
<testsuite name="BrowserTest" tests="1" failures="0" errors="0" skipped="1">
<testcase name="PagesInChromium" classname="BrowserTest"><skipped message="$escaped"/></testcase>
</testsuite>
</testsuites>
XML
  fi
  exit 0
fi
python=/usr/bin/python3
[[ -x "$python" ]] || python=python3

pages=$(mktemp -d "${TEST_TMPDIR:-/tmp}/pages.XXXXXX")
tests/browser/render_fixture_pages "$pages"
screenshots=${TEST_UNDECLARED_OUTPUTS_DIR:-$pages}
exec "$python" tests/browser/browser_check.py --chromium "$chromium" --screenshots "$screenshots" \
  ${XML_OUTPUT_FILE:+--xml "$XML_OUTPUT_FILE"} "$pages"/*.html
