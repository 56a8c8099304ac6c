"""Generates the Python messages and gRPC stub of proto/*.proto into OUT/torchscan/_proto/:

    python build_proto.py PROTO_ROOT OUT

with grpcio-tools' protoc (the one that matches the protobuf and grpcio this Python has), so the
generated code and the runtime always agree. PROTO_ROOT is the folder holding proto/ (the
repository root). The protos import each other as "proto/x.proto", which protoc writes as
`from proto import`; here that becomes the package's own `from torchscan._proto import`.
One way to make them, used by setup.py (pip install ./python) and by the Bazel genrule of
python/BUILD.bazel.
"""

import os
import shutil
import sys
import tempfile

PROTOS = ("workload", "report", "service")
OUTPUTS = ("workload_pb2.py", "report_pb2.py", "service_pb2.py", "service_pb2_grpc.py")


def generate(proto_root, out):
    """Writes OUTPUTS into out/torchscan/_proto; raises RuntimeError naming protoc's complaint."""
    from grpc_tools import protoc  # build-time dependency (pyproject.toml)
    import grpc_tools

    include = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    sources = [os.path.join(proto_root, "proto", name + ".proto") for name in PROTOS]
    missing = [s for s in sources if not os.path.exists(s)]
    if missing:
        raise RuntimeError(f"build_proto: {', '.join(missing)} missing: build from a TorchScan checkout "
                           "(pip install ./python from its root)")
    work = tempfile.mkdtemp()
    try:
        code = protoc.main(["protoc", f"-I{proto_root}", f"-I{include}", f"--python_out={work}",
                            f"--grpc_python_out={work}", *sources])
        if code != 0:
            raise RuntimeError(f"build_proto: protoc failed ({code}) on {', '.join(sources)}")
        target = os.path.join(out, "torchscan", "_proto")
        os.makedirs(target, exist_ok=True)
        for name in OUTPUTS:
            with open(os.path.join(work, "proto", name), encoding="utf-8") as f:
                text = f.read().replace("\nfrom proto import ", "\nfrom torchscan._proto import ")
            with open(os.path.join(target, name), "w", encoding="utf-8") as f:
                f.write(text)
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: build_proto.py PROTO_ROOT OUT")
    generate(sys.argv[1], sys.argv[2])
