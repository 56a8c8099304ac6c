"""torchscan_proto_library: C++ code from .proto files with Debian's protoc and grpc_cpp_plugin.

  torchscan_proto_library(name, srcs, deps = [], grpc = False)

makes
  :<name>        cc_library of the messages (<file>.pb.h/.pb.cc), links protobuf only
  :<name>_grpc   (grpc = True) cc_library of the services (<file>.grpc.pb.h/.cc), links gRPC
  :<name>_srcs   filegroup of the .proto files, for libraries that import them
deps are other torchscan_proto_library names whose files srcs import. Generated code is
never checked in: it is rebuilt from the .proto files by the system tools.
"""

def _outputs(srcs, suffixes):
    return [s[:-len(".proto")] + suffix for s in srcs for suffix in suffixes]

def _protoc(name, srcs, deps, out_flag, suffixes, tools_flags = ""):
    proto_inputs = srcs + [d + "_srcs" for d in deps]
    native.genrule(
        name = name,
        srcs = proto_inputs,
        outs = _outputs(srcs, suffixes),
        cmd = "protoc --proto_path=. {tools} {out}=$(GENDIR) {files}".format(
            tools = tools_flags,
            out = out_flag,
            files = " ".join(["$(location %s)" % s for s in srcs]),
        ),
    )

def torchscan_proto_library(name, srcs, deps = [], grpc = False, visibility = None):
    native.filegroup(name = name + "_srcs", srcs = srcs + [d + "_srcs" for d in deps], visibility = visibility)
    _protoc(name + "_pb_gen", srcs, deps, "--cpp_out", [".pb.h", ".pb.cc"])
    native.cc_library(
        name = name,
        srcs = _outputs(srcs, [".pb.cc"]),
        hdrs = _outputs(srcs, [".pb.h"]),
        deps = deps + ["@protobuf"],
        visibility = visibility,
    )
    if grpc:
        _protoc(
            name + "_grpc_gen",
            srcs,
            deps,
            "--grpc_out",
            [".grpc.pb.h", ".grpc.pb.cc"],
            tools_flags = "--plugin=protoc-gen-grpc=$$(command -v grpc_cpp_plugin)",
        )
        native.cc_library(
            name = name + "_grpc",
            srcs = _outputs(srcs, [".grpc.pb.cc"]),
            hdrs = _outputs(srcs, [".grpc.pb.h"]),
            deps = [name, "@grpc"],
            visibility = visibility,
        )
