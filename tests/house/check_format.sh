#!/usr/bin/env bash
# The format check (CONTRIBUTING.md, "Style"): every C++ file Bazel hands it is formatted as
# the repository's .clang-format says, checked with Debian's clang-format (scripts/setup.sh
# installs it). Usage: check_format.sh STYLE_FILE FILE...
# First proves it can fail: a badly formatted snippet must be refused under the same style.
set -euo pipefail
style=$1
shift
tool=$(command -v clang-format || true)
if [[ -z "$tool" ]]; then
  echo "format_test: clang-format is not installed: run scripts/setup.sh (Debian package clang-format)" >&2
  exit 1
fi
args=(--dry-run -Werror "--style=file:$style")

if printf 'int  f( int x ){return x;}\n' | "$tool" "${args[@]}" --assume-filename=probe.cc >/dev/null 2>&1; then
  echo "format_test: self-test failed: clang-format accepted a badly formatted line" >&2
  exit 1
fi

errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
if ! "$tool" "${args[@]}" "$@" 2>"$errors"; then
  grep -E '^[^ ].*: error:' "$errors" | sed 's/: error: .*/: not formatted/' | sort -u >&2
  echo "format_test: run  clang-format -i FILE  on the files above (or git clang-format on your change)" >&2
  exit 1
fi
echo "format_test: $# C++ files formatted as .clang-format says"
