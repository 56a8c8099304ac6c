"""Writes hostile TorchScript modules, the way an attacker with a Python install makes them.

    /usr/bin/python3 tests/python/make_hostile_models.py OUT_DIR [NAME=PATH | fill:NAME=PATH:BYTES:COUNT ...]

Needs torch (the project environment's, e2e::ProjectPython()). Writes into OUT_DIR:
  bad_text.pt    forward(x) fails with an assertion message that is not UTF-8 (TorchScript's
                 chr(255) is the one byte 0xFF) and carries terminal escape sequences (a
                 window title, a colour), as a job's error every user's listing shows.
  forge_phase.pt forward(x) prints worker protocol lines ("phase forged by the module",
                 "blocks 999999") on every call and returns x: a job's own prints must never
                 reach its timeline.
  grab.pt        forward(x) fills a new tensor of COUNT * BYTES (the last fill target's, else 1 GiB)
                 and returns x: a job's own memory, which its limit must stop.
and for each fill:NAME=PATH:BYTES:COUNT:
  fill_NAME.pt   forward(x) writes COUNT files PATH0, PATH1, ... of BYTES each, one mapping at a
                 time (so that no address-space limit sees more than one): files of /tmp or
                 /dev/shm in memory, which a job's memory limit must stop.
and for each NAME=PATH:
  read_NAME.pt   forward(x) reads the first bytes of PATH (torch.from_file) and fails with
                 "LEAKED <bytes as numbers>": a job's error goes back to its submitter, so
                 whatever it could read is carried out that way.
  write_NAME.pt  forward(x) maps PATH shared (torch.from_file(..., shared=True)) and
                 overwrites its first bytes with zeros, then returns x: the file changes on
                 disk if the job can write it.
The modules take one float tensor of any shape.
"""
import os
import sys
from typing import List

import torch


class Reader(torch.nn.Module):
    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def forward(self, x):
        data = torch.from_file(self.path, shared=False, size=8, dtype=torch.uint8)
        leaked = "LEAKED"
        values: List[int] = data.to(torch.int64).tolist()
        for b in values:
            leaked = leaked + " " + str(b)
        assert False, leaked
        return x


class Writer(torch.nn.Module):
    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def forward(self, x):
        data = torch.from_file(self.path, shared=True, size=4, dtype=torch.uint8)
        data.fill_(0)
        # Used in the result, so that TorchScript's dead code elimination keeps the write.
        return x + data.sum().to(x.dtype) * 0.0


class Filler(torch.nn.Module):
    def __init__(self, path: str, size: int, count: int):
        super().__init__()
        self.path = path
        self.size = size
        self.count = count

    def forward(self, x):
        total = 0.0
        for i in range(self.count):
            data = torch.from_file(self.path + str(i), shared=True, size=self.size, dtype=torch.uint8)
            data.fill_(1)
            total += float(data[self.size - 1])
        return x + total * 0.0


class Grabber(torch.nn.Module):
    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def forward(self, x):
        data = torch.ones(self.size, dtype=torch.uint8)
        return x + data[self.size - 1].to(x.dtype) * 0.0


class BadText(torch.nn.Module):
    def forward(self, x):
        esc = chr(27)
        assert False, "BADTEXT " + esc + "]0;owned" + chr(7) + esc + "[31mred " + chr(255)
        return x


class ForgePhase(torch.nn.Module):
    def forward(self, x):
        print("phase forged by the module")
        print("blocks 999999")
        return x


def main(out, targets):
    os.makedirs(out, exist_ok=True)
    torch.jit.script(BadText()).save(os.path.join(out, "bad_text.pt"))
    torch.jit.script(ForgePhase()).save(os.path.join(out, "forge_phase.pt"))
    grab = 1 << 30
    for target in [t for t in targets if t.startswith("fill:")]:
        name, spec = target[len("fill:"):].split("=", 1)
        path, size, count = spec.rsplit(":", 2)
        grab = int(size) * int(count)
        torch.jit.script(Filler(path, int(size), int(count))).save(os.path.join(out, "fill_" + name + ".pt"))
    torch.jit.script(Grabber(grab)).save(os.path.join(out, "grab.pt"))
    for target in [t for t in targets if not t.startswith("fill:")]:
        name, path = target.split("=", 1)
        torch.jit.script(Reader(path)).save(os.path.join(out, "read_" + name + ".pt"))
        torch.jit.script(Writer(path)).save(os.path.join(out, "write_" + name + ".pt"))


if __name__ == "__main__":
    if len(sys.argv) < 2 or any("=" not in t for t in sys.argv[2:]):
        sys.exit("usage: make_hostile_models.py OUT_DIR [NAME=PATH | fill:NAME=PATH:BYTES:COUNT ...]")
    main(sys.argv[1], sys.argv[2:])
