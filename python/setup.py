"""Builds the torchscan package: generates torchscan/_proto from the checkout's proto/ (build_proto.py)
into the build folder, and pins grpcio/protobuf to at least the versions of the generator, whose
generated code checks them at import. Everything else is in pyproject.toml."""

import os
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import build_proto  # noqa: E402


class BuildWithProto(build_py):
    def run(self):
        super().run()
        build_proto.generate(os.path.dirname(HERE), self.build_lib)


def _requirements():
    from importlib.metadata import version

    from google.protobuf import __version__ as protobuf_version

    grpc_version = version("grpcio-tools")
    return [f"grpcio>={grpc_version}", f"protobuf>={protobuf_version}"]


setup(cmdclass={"build_py": BuildWithProto}, install_requires=_requirements())
