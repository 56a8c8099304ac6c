#!/usr/bin/env bash
# Installs the Debian 12 packages TorchScan builds and runs with. Idempotent: when every
# package is already installed it only checks and returns in about a second.
# Usage: scripts/setup.sh   (as root, or with sudo available)
set -euo pipefail

packages=(
  bazel-bootstrap bazel-rules-java          # Bazel 4 and the rules_java it needs offline
  g++ pkg-config                            # toolchain; pkg-config feeds link flags to Bazel
  libtorch-dev                              # LibTorch 1.13 (CPU)
  libopenblas0-pthread                      # fast BLAS behind LibTorch (reference BLAS is ~13x slower)
  libprotobuf-dev protobuf-compiler         # schema
  libgrpc++-dev protobuf-compiler-grpc      # daemon/client transport
  libabsl-dev                               # gRPC's link-time dependency
  libspdlog-dev                             # logs
  libboost-dev libboost-filesystem-dev      # Boost.Process (workers, RSS children)
  libgtest-dev libgmock-dev                 # tests
  libcli11-dev                              # command-line parsing
  chromium                                  # headless browser test of the HTML report (tests/browser)
  python3                                   # drives Chromium in that test (standard library only)
  util-linux                                # unshare: the browser test runs with no network
  python3-yaml                              # the deploy tests parse deploy/kubernetes/*.yaml
  python3-torch                             # tests/python: models and tensors saved the way a Python user saves them
  python3-grpcio python3-protobuf           # the Python client package (python/torchscan)
  openssl                                   # the deploy tests make a throw-away TLS certificate
  systemd                                   # systemd-analyze verifies deploy/systemd/ (tests)
  shellcheck                                # lints deploy/ and scripts/ shell scripts (tests)
  clang-format                              # the C++ style check (//tests/house:format_test)
  valgrind                                  # --instructions: callgrind counts (and valgrind/callgrind.h to build)
  slurm-wlm munge                           # the Slurm front's tests run a real one-node cluster (tests/deploy)
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
echo "setup: installing ${missing[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup: done"
