#!/usr/bin/env bash
# Builds TorchScan's five programs and installs them into PREFIX/bin (default /usr/local),
# and the Python client package `torchscan` into the project environment
# ($TORCHSCAN_VENV, default /opt/torchscan/venv, which has the pinned torch):
#   scripts/install.sh [PREFIX]
#
#   torchscand           the daemon; runs the worker found beside itself (PREFIX/bin)
#   torchscan-worker     one job in a fresh process; runs the RSS child found beside itself
#   torchscan_rss_child  one peak-RSS trial in a fresh process
#   torchscan-client     the command-line client
#   torchscan-node-job   one job of a Slurm front daemon, on the node Slurm gave it
#
# Keeping the three daemon-side programs in one folder is what lets torchscand find them
# without worker_path / rss_child_path in its configuration. Run scripts/setup.sh first (as
# root) on a fresh Debian 12 machine. BAZEL overrides the bazel command, e.g.
# BAZEL="bazel --output_base=/tmp/ob" scripts/install.sh /opt/torchscan
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${1:-/usr/local}
if [[ $# -gt 1 || "$prefix" == -* ]]; then
  echo "usage: scripts/install.sh [PREFIX]   (installs into PREFIX/bin; default /usr/local)" >&2
  exit 2
fi
read -r -a bazel <<<"${BAZEL:-bazel}"

targets=(//daemon:torchscand //worker:torchscan-worker //passes:torchscan_rss_child
         //client:torchscan-client //daemon:torchscan-node-job)
"${bazel[@]}" build --experimental_convenience_symlinks=ignore "${targets[@]}"

install -d -m 0755 "$prefix/bin"
execroot=$("${bazel[@]}" info execution_root 2>/dev/null)
for target in "${targets[@]}"; do
  # Bazel 4 has no --output=files: ask Starlark for the target's one output file.
  if ! file=$("${bazel[@]}" cquery --output=starlark --starlark:expr='target.files.to_list()[0].path' "$target" \
                2>/dev/null) || [[ -z "$file" ]]; then
    echo "install: cannot find the built file of $target (bazel cquery failed)" >&2
    exit 1
  fi
  [[ "$file" == /* ]] || file="$execroot/$file"
  install -m 0755 "$file" "$prefix/bin/"
  echo "install: $prefix/bin/$(basename "$file")"
done

# The Python client, into the project environment (scripts/setup.sh made it): pip builds it
# from python/ (its messages generated from proto/ on the way) and replaces an older install.
venv=${TORCHSCAN_VENV:-/opt/torchscan/venv}
if [[ ! -x "$venv/bin/pip" ]]; then
  echo "install: no project environment at $venv: run scripts/setup.sh, then this again" >&2
  exit 1
fi
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
# A copy, so the build's folders (build/, *.egg-info) stay out of the checkout.
cp -r python proto "$build/"
"$venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation "$build/python"
echo "install: torchscan (the Python client) into $venv: $venv/bin/python -c 'import torchscan'"
