"""Writes AOTInductor packages (.pt2) and their uncompiled TorchScript twins, as a user makes them.

    /opt/torchscan/venv/bin/python tests/python/make_packages.py OUT_DIR

Needs the project environment's torch (scripts/setup.sh), g++ and OpenMP (Inductor compiles C++).
Writes into OUT_DIR, each model with torch.manual_seed(0) weights in eval mode:
  linear.pt2 / linear.pt      Linear(64, 32) on 8x64
  linear_other.pt2            the same shape, other weights (an output check fails)
  linear_markers.pt2          linear compiled with cpp.enable_kernel_profile (kernel markers)
  cnn.pt2 / cnn.pt            Conv2d(3, 8, 3, p1), ReLU, flatten, Linear(8*8*8, 10) on 2x3x8x8
  two_inputs.pt2 / .pt        forward(x 4x16, y 4x16) -> {"sum": fc(x) + y, "scaled": x * 2}
  exported.pt2                linear exported with torch.export.save, never compiled
  corrupt.pt2                 linear.pt2 cut to its first half
  claims_cuda.pt2             linear.pt2 with its metadata saying AOTI_DEVICE_KEY "cuda", as a package
                              compiled for a GPU says (no GPU or CUDA toolchain is needed to make it)
  bad_library.pt2             linear.pt2 with its compiled library replaced by bytes that do not load
"""
import json
import os
import sys
import zipfile

import torch


class Linear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(64, 32)

    def forward(self, x):
        return self.fc(x)


class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        return self.fc(torch.flatten(torch.relu(self.conv(x)), 1))


class TwoInputs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x, y):
        return {"sum": self.fc(x) + y, "scaled": x * 2}


def package(model, args, path, configs=None):
    program = torch.export.export(model, args)
    torch._inductor.aoti_compile_and_package(program, package_path=path, inductor_configs=configs)
    return program


def both(model, args, out, name):
    package(model, args, os.path.join(out, name + ".pt2"))
    torch.jit.script(model).save(os.path.join(out, name + ".pt"))


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    linear = Linear().eval()
    x = torch.randn(8, 64)
    both(linear, (x,), out, "linear")
    package(linear, (x,), os.path.join(out, "linear_markers.pt2"), {"cpp.enable_kernel_profile": True})
    torch.manual_seed(1)
    package(Linear().eval(), (x,), os.path.join(out, "linear_other.pt2"))
    torch.manual_seed(0)
    both(CNN().eval(), (torch.randn(2, 3, 8, 8),), out, "cnn")
    torch.manual_seed(0)
    both(TwoInputs().eval(), (torch.randn(4, 16), torch.randn(4, 16)), out, "two_inputs")
    torch.export.save(torch.export.export(linear, (x,)), os.path.join(out, "exported.pt2"))
    with open(os.path.join(out, "linear.pt2"), "rb") as f:
        whole = f.read()
    with open(os.path.join(out, "corrupt.pt2"), "wb") as f:
        f.write(whole[: len(whole) // 2])
    with zipfile.ZipFile(os.path.join(out, "linear.pt2")) as src, zipfile.ZipFile(
        os.path.join(out, "claims_cuda.pt2"), "w"
    ) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename.endswith("_metadata.json"):
                metadata = json.loads(data)
                metadata["AOTI_DEVICE_KEY"] = "cuda"
                data = json.dumps(metadata).encode()
            dst.writestr(item, data)
    with zipfile.ZipFile(os.path.join(out, "linear.pt2")) as src, zipfile.ZipFile(
        os.path.join(out, "bad_library.pt2"), "w"
    ) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            dst.writestr(item, b"\x7fELF, but not a library" if item.filename.endswith(".so") else data)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
