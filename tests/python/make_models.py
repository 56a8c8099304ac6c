"""Writes the files a Python user hands TorchScan, the way such a user makes them.

    /usr/bin/python3 tests/python/make_models.py OUT_DIR

Needs torch: the project environment's, the same version as TorchScan's LibTorch (scripts/setup.sh).
Writes into OUT_DIR:
  mlp.pt            torch.jit.script(MLP).save: Linear(256, 512), ReLU, Linear(512, 256)
  mlp_optimized.pt  the same weights, torch.jit.freeze + torch.jit.optimize_for_inference
  cnn.pt            torch.jit.script(CNN).save: Conv2d(3,16,3,p1), ReLU, Conv2d(16,32,3,p1), ReLU,
                    flatten, Linear(32*16*16, 10); input 4x3x16x16
  cnn_optimized.pt  the CNN after torch.jit.freeze + optimize_for_inference: PyTorch 1.13 saves
                    it but cannot load it back ("required keyword attribute 'value' is undefined")
  mlp_state_dict.pt torch.save(MLP().state_dict()): a dict of tensors, neither module nor input
  x.pt              torch.save(torch.randn(64, 256)) (zip format, the default)
  x_legacy.pt       the same tensor, torch.save(..., _use_new_zipfile_serialization=False)
"""
import os
import sys

import torch


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(256, 512)
        self.fc2 = torch.nn.Linear(512, 256)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.fc = torch.nn.Linear(32 * 16 * 16, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        return self.fc(torch.flatten(x, 1))


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    mlp = MLP().eval()
    scripted = torch.jit.script(mlp)
    scripted.save(os.path.join(out, "mlp.pt"))
    optimized = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.script(mlp).eval()))
    optimized.save(os.path.join(out, "mlp_optimized.pt"))
    torch.jit.script(CNN().eval()).save(os.path.join(out, "cnn.pt"))
    cnn_optimized = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.script(CNN().eval())))
    cnn_optimized.save(os.path.join(out, "cnn_optimized.pt"))
    torch.save(mlp.state_dict(), os.path.join(out, "mlp_state_dict.pt"))
    x = torch.randn(64, 256)
    torch.save(x, os.path.join(out, "x.pt"))
    torch.save(x, os.path.join(out, "x_legacy.pt"), _use_new_zipfile_serialization=False)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_models.py OUT_DIR")
    main(sys.argv[1])
