"""libtorch_repository: finds the LibTorch to build against and wraps it as @libtorch.

Choice: the folder in $TORCHSCAN_LIBTORCH when set (an unpacked LibTorch distribution or
a pip `torch` package folder, 2.6 or later: both hold include/ and lib/), else the torch
package of the project environment ($TORCHSCAN_VENV, default /opt/torchscan/venv, made by
scripts/setup.sh with the version in TORCH_VERSION beside this file). Fails, naming the
variable, the missing file and the fix, when there is no LibTorch, when it is older than 2.6
(the C++11 ABI and the APIs TorchScan uses), or when the project environment holds another
version than TORCH_VERSION.

The repository provides:
  @libtorch//:libtorch       headers, include paths and link flags (libtorch_cpu and libc10 only: CUDA
                             jobs load libtorch_cuda.so at run time, devices/cuda_support.h)
  @libtorch//:build_info     libtorch_build_info.h: TORCHSCAN_LIBTORCH_VERSION, _PATH, _CUDA (0/1)
  @libtorch//:cuda.bzl       LIBTORCH_HAS_CUDA, for BUILD files that compile CUDA-only sources
It prints which LibTorch it found when the rule runs.
"""

_VERSION_H = "include/torch/csrc/api/include/torch/version.h"

def _read_version(ctx, root):
    """TORCH_VERSION of the LibTorch at root (2.9+ keep it in torch/headeronly/version.h)."""
    for header in ["/include/torch/headeronly/version.h", "/" + _VERSION_H]:
        if not ctx.path(root + header).exists:
            continue
        parts = {}
        for line in ctx.read(root + header).split("\n"):
            words = [w for w in line.strip().replace("\t", " ").split(" ") if w]
            if len(words) == 3 and words[0] == "#define":
                parts[words[1]] = words[2].strip("\"")
            if len(words) >= 3 and words[:2] == ["#define", "TORCH_VERSION"] and words[2].startswith("\""):
                return words[2].strip("\"")
        if "TORCH_VERSION_MAJOR" in parts:
            return "%s.%s.%s" % (parts["TORCH_VERSION_MAJOR"], parts["TORCH_VERSION_MINOR"], parts["TORCH_VERSION_PATCH"])
    return "unknown"

def _project_torch(ctx):
    """The torch package folder of the project environment (scripts/setup.sh makes it)."""
    venv = ctx.os.environ.get("TORCHSCAN_VENV", "/opt/torchscan/venv")
    python = venv + "/bin/python"
    if not ctx.path(python).exists:
        fail("No LibTorch: the project environment %s does not exist. Run scripts/setup.sh (it makes it with " % venv +
             "the pinned torch), or set TORCHSCAN_LIBTORCH to an unpacked LibTorch folder (2.6 or later).")
    found = ctx.execute([python, "-c", "import importlib.util as u; s = u.find_spec('torch'); " +
                                       "print(s.submodule_search_locations[0] if s else '')"])
    root = found.stdout.strip()
    if found.return_code != 0 or not root:
        fail("No LibTorch: %s has no torch package. Run scripts/setup.sh to install the pinned torch there. %s" %
             (venv, found.stderr))
    return root

def _link_distribution_layout(ctx, root):
    root = root.rstrip("/")
    for needed in [_VERSION_H, "lib/libtorch.so"]:
        if not ctx.path(root + "/" + needed).exists:
            fail("TORCHSCAN_LIBTORCH=%s does not hold a LibTorch: %s is missing. Point it at an unpacked " % (root, needed) +
                 "LibTorch distribution or a pip torch package folder (the one holding include/ and lib/), or unset it.")
    # Each top-level include folder except google/: a pip torch ships old protobuf headers
    # there, which would shadow the system protobuf the schema is generated with.
    for entry in ctx.path(root + "/include").readdir():
        if entry.basename != "google":
            ctx.symlink(entry, "include/" + entry.basename)
    return root, root + "/lib"

def _libtorch_repository_impl(ctx):
    chosen = ctx.os.environ.get("TORCHSCAN_LIBTORCH", "")
    root, lib_dir = _link_distribution_layout(ctx, chosen or _project_torch(ctx))
    version = _read_version(ctx, root)
    pinned = ctx.read(ctx.path(Label("//third_party/libtorch:TORCH_VERSION"))).strip()
    if version == "unknown":
        fail("Cannot read the version of the LibTorch at %s (neither torch/headeronly/version.h nor %s): " %
             (root, _VERSION_H) + "point TORCHSCAN_LIBTORCH at a LibTorch 2.6 or later, or unset it.")
    numbers = [int(n) for n in (version.split(".") + ["0", "0"])[:2] if n.isdigit()]
    if len(numbers) < 2 or numbers[0] < 2 or (numbers[0] == 2 and numbers[1] < 6):
        fail("LibTorch %s at %s is too old: TorchScan needs 2.6 or later (pinned: %s). Run scripts/setup.sh, " %
             (version, root, pinned) + "or point TORCHSCAN_LIBTORCH at a newer one.")
    if not chosen and version.split("+")[0] != pinned:
        fail("The project environment's torch is %s, but TORCH_VERSION pins %s: run scripts/setup.sh." %
             (version, pinned))
    has_cuda = ctx.path(lib_dir + "/libtorch_cuda.so").exists

    # CPU and CUDA share these two; libtorch.so is left out (it NEEDs libtorch_cuda.so). A job on
    # a CUDA device loads libtorch_cuda.so at run time (devices/cuda_support.h): linked, its
    # CUDA libraries cost every CPU job 0.17 s of start-up and 350 MB of RSS (README). No CUDA
    # toolkit is needed: TorchScan's CUDA code uses LibTorch's device-generic API
    # (at::accelerator, c10::Event) and the driver's libraries, loaded at run time (devices/).
    libs = ["-ltorch_cpu", "-lc10", "-ldl"]

    ctx.file("WORKSPACE", "workspace(name = \"libtorch\")\n")
    ctx.file("libtorch_build_info.h", """// Generated by third_party/libtorch/libtorch.bzl: the LibTorch this build uses.
#pragma once
#define TORCHSCAN_LIBTORCH_VERSION "{version}"
#define TORCHSCAN_LIBTORCH_PATH "{root}"
#define TORCHSCAN_LIBTORCH_CUDA {cuda}
""".format(version = version, root = root, cuda = 1 if has_cuda else 0))
    ctx.file("cuda.bzl", "LIBTORCH_HAS_CUDA = %s\n" % has_cuda)
    includes = ["include", "include/torch/csrc/api/include"]
    hdr_globs = ["include/**/*.h", "include/**/*.hpp", "include/**/*.cuh"]
    ctx.file("BUILD.bazel", """
package(default_visibility = ["//visibility:public"])

exports_files(["cuda.bzl"])

cc_library(
    name = "libtorch",
    hdrs = glob({hdrs}),
    includes = {includes},
    # LibTorch's inline headers assume the NDEBUG it was built with (design.md).
    defines = ["NDEBUG"],
    linkopts = {linkopts},
)

cc_library(
    name = "build_info",
    hdrs = ["libtorch_build_info.h"],
)
""".format(
        hdrs = repr(hdr_globs),
        includes = repr(includes),
        linkopts = repr(["-L" + lib_dir, "-Wl,-rpath," + lib_dir] + libs),
    ))
    print("TorchScan: LibTorch %s at %s, CUDA %s" % (version, root, "on" if has_cuda else "off"))

libtorch_repository = repository_rule(
    implementation = _libtorch_repository_impl,
    environ = ["TORCHSCAN_LIBTORCH", "TORCHSCAN_VENV"],
    local = True,
)
