"""The benchmarks' Python workload: a chain of tanh(Linear(256, 256)) layers on a 64x256 input,
saved as TorchScript with the project environment's torch (the validity benchmark's two-file case uses
the same shape from C++, benchmarks/tanh_chain_module.h)."""
import os


def chain(layers=50):
    """The chain of `layers` tanh(Linear(256, 256)) layers, eval mode, weights from seed 0."""
    import torch

    class Chain(torch.nn.Module):
        def __init__(self, layers):
            super().__init__()
            self.layers = torch.nn.ModuleList(torch.nn.Linear(256, 256) for _ in range(layers))

        def forward(self, x):
            for layer in self.layers:
                x = torch.tanh(layer(x))
            return x

    torch.manual_seed(0)
    return Chain(layers).eval()


def save_chain(folder, layers=50, name=None):
    """Saves a scripted chain of `layers` layers (seed 0) into `folder`; returns its path."""
    import torch

    path = os.path.join(folder, name or f"chain{layers}.pt")
    torch.jit.script(chain(layers)).save(path)
    return path


def save_chain_package(folder, layers=50, name=None):
    """Saves the same chain exported on a 64x256 input and compiled into an AOTInductor package
    (.pt2) into `folder`; returns its path."""
    import torch

    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name or f"chain{layers}.pt2")
    program = torch.export.export(chain(layers), (torch.randn(64, 256),))
    torch._inductor.aoti_compile_and_package(program, package_path=path)
    return path


if __name__ == "__main__":
    import sys

    # python chain_module.py --package FOLDER LAYERS...: one package per count, chain<N>.pt2
    if len(sys.argv) < 4 or sys.argv[1] != "--package":
        sys.exit("usage: chain_module.py --package FOLDER LAYERS...")
    for count in sys.argv[3:]:
        print(save_chain_package(sys.argv[2], int(count)))
