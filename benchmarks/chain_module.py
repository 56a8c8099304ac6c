"""The benchmarks' Python workload: a chain of tanh(Linear(256, 256)) layers on a 64x256 input,
saved as TorchScript with the project environment's torch (the validity benchmark's two-file case uses
the same shape from C++, benchmarks/tanh_chain_module.h)."""
import os


def save_chain(folder, layers=50, name=None):
    """Saves a scripted chain of `layers` layers (seed 0) into `folder`; returns its path."""
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
    path = os.path.join(folder, name or f"chain{layers}.pt")
    torch.jit.script(Chain(layers)).save(path)
    return path
