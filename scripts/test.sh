#!/usr/bin/env bash
# Installs what the tests need (scripts/setup.sh), then builds and runs every test:
#   scripts/test.sh [extra bazel test arguments]
# Prints Bazel's summary and one closing line "tests: N passed, N failed" counting the
# GoogleTest cases of every test target that ran.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
rc=0
bazel test //... "$@" || rc=$?

passed=0
failed=0
testlogs=$(bazel info bazel-testlogs 2>/dev/null)
while IFS= read -r xml; do
  line=$(grep -m1 -o '<testsuites [^>]*>' "$xml" || true)
  tests=$(sed -n 's/.* tests="\([0-9]*\)".*/\1/p' <<<"$line")
  failures=$(sed -n 's/.* failures="\([0-9]*\)".*/\1/p' <<<"$line")
  errors=$(sed -n 's/.* errors="\([0-9]*\)".*/\1/p' <<<"$line")
  bad=$(( ${failures:-0} + ${errors:-0} ))
  failed=$(( failed + bad ))
  passed=$(( passed + ${tests:-0} - bad ))
done < <(bazel query 'tests(//...)' 2>/dev/null | sed -n 's|^//\([^:]*\):\(.*\)$|'"$testlogs"'/\1/\2/test.xml|p' |
         while IFS= read -r xml; do [[ -f "$xml" ]] && echo "$xml"; done)
echo "tests: $passed passed, $failed failed"
exit $rc
