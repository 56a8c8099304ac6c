"""Two TorchScript modules for the instruction-count end-to-end test, saved the way a Python
user saves them: tanh1.pt applies tanh once, tanh4.pt four times (the same work per element,
four times over), so the candidate's count grows and its function diff names tanh.

usage: /usr/bin/python3 make_tanh_models.py OUT_DIR"""
import os
import sys

import torch


class Tanh(torch.nn.Module):
    def __init__(self, times: int):
        super().__init__()
        self.times = times

    def forward(self, x):
        for _ in range(self.times):
            x = torch.tanh(x)
        return x


def main(out):
    os.makedirs(out, exist_ok=True)
    for times in (1, 4):
        torch.jit.script(Tanh(times).eval()).save(os.path.join(out, f"tanh{times}.pt"))


if __name__ == "__main__":
    main(sys.argv[1])
