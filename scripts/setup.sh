#!/usr/bin/env bash
# Installs what TorchScan builds and runs with: Debian 12 packages, then the project
# environment, a Python venv holding the pinned torch (its LibTorch is the one Bazel builds
# against; the version is third_party/libtorch/TORCH_VERSION, nowhere else) and what the
# Python client and the tests need. Idempotent: when everything is in place it only checks
# and returns in a few seconds.
# Usage: scripts/setup.sh   (as root, or with sudo available)
#   TORCHSCAN_VENV   where the project environment lives (default /opt/torchscan/venv); Bazel
#                    reads the same variable, so set it for both or for neither.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  bazel-bootstrap bazel-rules-java          # Bazel 4 and the rules_java it needs offline
  g++ pkg-config                            # toolchain; pkg-config feeds link flags to Bazel
  libprotobuf-dev protobuf-compiler         # schema
  libgrpc++-dev protobuf-compiler-grpc      # daemon/client transport
  libabsl-dev                               # gRPC's link-time dependency
  libspdlog-dev                             # logs
  libssl-dev                                # SHA-256 of module and tensor files (libcrypto)
  libboost-dev libboost-filesystem-dev      # Boost.Process (workers, RSS children)
  libgtest-dev libgmock-dev                 # tests
  libcli11-dev                              # command-line parsing
  chromium                                  # headless browser test of the HTML report (tests/browser)
  python3                                   # drives Chromium in that test (standard library only)
  util-linux                                # unshare: the browser test runs with no network
  python3-yaml                              # the deploy tests parse deploy/kubernetes/*.yaml
  python3-venv                              # the project environment (torch from PyPI) is a venv
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

sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#packages[@]} Debian packages already installed"
else
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The project environment. torch from PyPI is a CUDA build (about 4.7 GB with its nvidia-*
# packages): every machine gets a CUDA-capable LibTorch, so the CUDA code builds everywhere.
venv=${TORCHSCAN_VENV:-/opt/torchscan/venv}
torch_version=$(tr -d '[:space:]' <third_party/libtorch/TORCH_VERSION)
python_packages=(
  "torch==$torch_version"   # LibTorch for the build, and torch for the tests' models
  numpy                     # torch warns without it; the tests' inputs use it
  grpcio grpcio-tools       # the Python client, and its messages generated at install time
  protobuf
  setuptools wheel          # pip install ./python without a download of the build tools
  nbclient nbformat ipykernel  # the notebook test runs a real notebook (tests/python_client)
)
have=$("$venv/bin/python" -c 'import torch, grpc, grpc_tools, google.protobuf, numpy, setuptools, nbclient, nbformat, ipykernel; print(torch.__version__.split("+")[0])' \
         2>/dev/null || true)
if [[ "$have" == "$torch_version" ]]; then
  echo "setup: the project environment $venv has torch $torch_version"
else
  echo "setup: making the project environment $venv (torch $torch_version${have:+, replacing $have})"
  [[ -x "$venv/bin/python" ]] || $sudo /usr/bin/python3 -m venv "$venv"
  $sudo "$venv/bin/pip" install -q --disable-pip-version-check "${python_packages[@]}"
fi
echo "setup: done"
