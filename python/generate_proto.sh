#!/usr/bin/env bash
# Generates the Python messages and gRPC stub of proto/*.proto into OUT/torchscan/_proto/:
#   python/generate_proto.sh REPO_ROOT OUT
# with Debian's protoc and grpc_python_plugin (protobuf-compiler, protobuf-compiler-grpc).
# The protos import each other as "proto/x.proto", which protoc writes as `from proto import`;
# here that becomes the package's own `from torchscan._proto import`. Used by
# scripts/install.sh and by the Bazel genrule of python/BUILD.bazel: one way to make them.
set -euo pipefail
root=$1
out=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
protoc -I"$root" --python_out="$work" --grpc_python_out="$work" \
  --plugin=protoc-gen-grpc_python="$(command -v grpc_python_plugin)" \
  "$root/proto/workload.proto" "$root/proto/report.proto" "$root/proto/service.proto"
mkdir -p "$out/torchscan/_proto"
for f in workload_pb2.py report_pb2.py service_pb2.py service_pb2_grpc.py; do
  sed 's/^from proto import /from torchscan._proto import /' "$work/proto/$f" >"$out/torchscan/_proto/$f"
done
