"""TorchScan from Python: check an optimization of a PyTorch workload without leaving Python.

    import torchscan
    r = torchscan.compare(baseline=model, candidate=opt_model, inputs=(x,), rtol=1e-4, atol=1e-5)
    r.label, r.claim, r.check     # the guide's label, the paired claim, the output check
    r.save("out/")                # comparison.json + comparison.html, as the CLI writes them
    m = torchscan.measure(model, inputs=(x,)); m.median_s

A thin client of torchscand over gRPC (the messages of proto/, generated at install time by
scripts/install.sh): the jobs run in the daemon's fresh workers, exactly as the CLI's do.
Without `daemon=` (and without $TORCHSCAN_DAEMON) each call starts a private daemon with the
CLI's arguments and stops it afterwards. Errors are TorchScanError, carrying the daemon's
message and the CLI's exit code for it.
"""

from torchscan._api import assert_not_slower, compare, measure
from torchscan._errors import TorchScanError
from torchscan._results import Comparison, Measurement

__all__ = ["compare", "measure", "assert_not_slower", "Comparison", "Measurement", "TorchScanError"]
