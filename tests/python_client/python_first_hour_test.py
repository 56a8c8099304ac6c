#!/usr/bin/env python3
"""A new user's first hour from Python (issue 44), on a personal daemon started as the README says
(`torchscan-client daemon start`, here in a temporary XDG_STATE_HOME) and found by every call
that names none: a real notebook executed with nbclient and ipykernel showing a comparison, a
wrong candidate that fails before timing, a module left in training mode, inputs in the wrong
order, a ScriptModule's name, the FLOP formula of F.linear against torch.utils.flop_counter,
and `jobs`/`history` without --daemon. The project environment's torch runs it
(tests/project_python.sh). No timing verdict is asserted: only what is exact.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.abspath("python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ["TORCHSCAND"] = os.path.abspath("daemon/torchscand")
os.environ["TORCHSCAN_CLIENT"] = os.path.abspath("client/torchscan-client")
os.environ.pop("TORCHSCAN_DAEMON", None)
STATE = tempfile.mkdtemp(prefix="tsh-", dir="/tmp")  # short: the socket path must fit 108 bytes
os.environ["XDG_STATE_HOME"] = STATE

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import junit_runner  # noqa: E402
import torchscan  # noqa: E402

FAST_MEASURE = dict(min_run_time=0.01, min_blocks=3, progress=False)
FAST = dict(FAST_MEASURE, rounds=1)
CLIENT = os.environ["TORCHSCAN_CLIENT"]


def client(*args):
    return subprocess.run([CLIENT, *args], capture_output=True, text=True, timeout=120)


class TwoInputs(torch.nn.Module):
    """The issue's model: two inputs, a dict output, dropout."""

    def __init__(self, key="score"):
        super().__init__()
        torch.manual_seed(0)
        self.lin = torch.nn.Linear(128, 10)
        self.drop = torch.nn.Dropout(0.1)
        self.key = key

    def forward(self, x, mask):
        y = self.drop(self.lin(x)) * mask
        return {"logits": y, self.key: y.sum(-1)}


class Linear(torch.nn.Module):
    """F.linear with a given weight and bias (or none)."""

    def __init__(self, weight, bias):
        super().__init__()
        self.weight = torch.nn.Parameter(weight)
        self.bias = torch.nn.Parameter(bias) if bias is not None else None

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


NOTEBOOK = r'''
import torch, torchscan
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = torch.nn.Linear(64, 64)
    def forward(self, x):
        return torch.relu(self.fc(x))
r = torchscan.compare(Net().eval(), Net().eval(), inputs=((32, 64),), rtol=1e-5, atol=1e-6,
                      min_run_time=0.01, min_blocks=3, rounds=1)
r
'''


class PythonFirstHourTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        started = client("daemon", "start")
        assert started.returncode == 0, started.stderr
        cls.started = started.stdout
        cls.x, cls.mask = torch.randn(16, 128), torch.ones(16, 10)

    @classmethod
    def tearDownClass(cls):
        client("daemon", "stop")
        shutil.rmtree(STATE, ignore_errors=True)

    def test_the_personal_daemon_serves_every_call_and_keeps_jobs_and_history(self):
        self.assertIn("the personal torchscand runs", self.started)
        self.assertEqual(client("daemon", "status").returncode, 0)
        m = torchscan.measure(TwoInputs().eval(), inputs=(self.x, self.mask), label="first-hour", **FAST_MEASURE)
        listed = client("jobs", "list")  # no --daemon, no TORCHSCAN_DAEMON: the personal daemon
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertIn(m.job_id, listed.stdout)
        out = os.path.join(STATE, "history")
        history = client("history", "first-hour", "--output", out)
        self.assertEqual(history.returncode, 0, history.stderr)
        self.assertTrue(os.path.isfile(os.path.join(out, "history.html")))
        again = client("daemon", "start")
        self.assertEqual(again.returncode, 0)
        self.assertIn("already runs", again.stdout)

    def test_a_wrong_candidate_fails_before_timing_with_the_check_message(self):
        r = torchscan.compare(TwoInputs().eval(), TwoInputs("scores").eval(), inputs=(self.x, self.mask),
                              rtol=1e-4, atol=1e-5, progress=False)
        self.assertEqual(r.check, "failed")
        self.assertIn('key "score"', r.proto.output_check.message)
        phases = [s.phase for s in r.proto.timeline.spans]
        self.assertIn("check (before timing)", phases)
        self.assertFalse([p for p in phases if p.startswith(("timing", "warm-up"))], phases)
        for run in (r.proto.before, r.proto.after):
            self.assertEqual(len(run.timing.blocks), 0)
            self.assertIn("not_timed", [w.code for w in run.warnings])
        self.assertIn("FAILED", str(r))

    def test_print_repr_and_the_notebook_view_are_human_sized(self):
        r = torchscan.compare(TwoInputs().eval(), TwoInputs().eval(), inputs=(self.x, self.mask), rtol=1e-4,
                              atol=1e-5, **FAST)
        self.assertIs(r.proto, r.message)
        self.assertLess(len(repr(r)), 200)
        text = str(r)
        self.assertTrue(text.startswith("TorchScan comparison:"), text[:200])
        self.assertLess(len(text.splitlines()), 40)
        view = r._repr_html_()
        self.assertLess(len(view.encode()), 150 * 1024)
        self.assertTrue(view.startswith('<div class="torchscan-nb">'), view[:80])
        self.assertIn('id="verdict-sentence"', view)
        self.assertNotIn("<html", view)

    def test_a_notebook_displays_a_comparison_in_its_compact_view(self):
        import nbclient
        import nbformat

        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(NOTEBOOK)])
        env = dict(os.environ, PYTHONPATH=os.path.abspath("python"))
        old = dict(os.environ)
        os.environ.update(env)  # the kernel inherits this environment
        try:
            nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                    resources={"metadata": {"path": STATE}}).execute()
        finally:
            os.environ.clear()
            os.environ.update(old)
        outputs = notebook.cells[0].outputs
        shown = [o for o in outputs if o.output_type == "execute_result"]
        self.assertEqual(len(shown), 1, outputs)
        html = shown[0].data["text/html"]
        self.assertIn('id="verdict-sentence"', html)
        self.assertIn("Output check", html)
        self.assertLess(len(html.encode()), 150 * 1024)
        self.assertLess(len(json.dumps(nbformat.writes(notebook))), 200 * 1024, "the saved notebook stays small")

    def test_a_module_in_training_mode_is_said_to_be_measured_in_eval_mode(self):
        m = torchscan.measure(TwoInputs(), inputs=(self.x, self.mask), **FAST_MEASURE)  # training mode
        warnings = {w.code: w.message for w in m.proto.warnings}
        self.assertIn("training_mode", warnings)
        self.assertIn("model.eval()", warnings["training_mode"])
        self.assertIn("training_mode", str(m))
        quiet = torchscan.measure(TwoInputs().eval(), inputs=(self.x, self.mask), **FAST_MEASURE)
        self.assertNotIn("training_mode", [w.code for w in quiet.proto.warnings])

    def test_inputs_in_the_wrong_order_name_the_signature_in_python_words(self):
        with self.assertRaises(torchscan.TorchScanError) as caught:
            torchscan.measure(TwoInputs().eval(), inputs=(self.mask, self.x), **FAST_MEASURE)
        message = str(caught.exception)
        self.assertIn("forward(x: Tensor, mask: Tensor)", message)
        self.assertIn("inputs=", message)
        self.assertNotIn("--input", message)
        # The fixes a report's warnings carry, as print(r) and the notebook view show them.
        words = torchscan._errors.python_words(
            "pin threads (--threads 1), or raise --min-run-time (min_run_time_s in a job file)")
        self.assertEqual(words, "pin threads (threads=1), or raise min_run_time=")

    def test_a_script_module_is_named_by_its_class(self):
        m = torchscan.measure(torch.jit.script(torch.nn.Linear(128, 10).eval()), inputs=((16, 128),), **FAST_MEASURE)
        self.assertIn("python: Linear, ScriptModule as given", m.proto.workload["model_source"])

    def test_the_linear_flop_formula_matches_torch_flop_counter_for_every_shape(self):
        """Every batch rank and bias shape F.linear accepts. torch.utils.flop_counter counts matrix
        weights (addmm, mm, bmm); for a vector weight (dot, mv) it counts nothing, so those are
        checked against 2 * batch * in_features, the formula flop_counter uses for mm."""
        from torch.utils.flop_counter import FlopCounterMode

        weights = {"matrix": torch.randn(10, 128), "vector": torch.randn(128)}
        biases = {"matrix": [None, (10,), (1,), ()], "vector": [None, ()]}
        against_counter = by_formula = 0
        for batch in [(), (16,), (4, 16), (2, 3, 4)]:
            for kind, weight in weights.items():
                for bias in biases[kind]:
                    module = Linear(weight, torch.randn(bias) if bias is not None else None).eval()
                    x = torch.randn(*batch, 128)
                    try:
                        with FlopCounterMode(display=False) as counter:
                            module(x)
                    except RuntimeError:
                        continue  # a shape PyTorch itself refuses (a vector weight with a bias on a batch)
                    case = f"input {tuple(x.shape)}, weight {tuple(weight.shape)}, bias {bias}"
                    expected = counter.get_total_flops()
                    if kind == "matrix":
                        against_counter += 1
                    else:
                        self.assertEqual(expected, 0, f"{case}: flop_counter now counts dot/mv; compare with it")
                        expected = 2 * x.numel()
                        by_formula += 1
                    flops = torchscan.measure(module, inputs=(x,), **FAST_MEASURE).proto.profile.flops_per_call
                    self.assertEqual(flops.value, expected, case)
                    self.assertTrue(flops.complete, f"{case}: {list(flops.diagnostics)}")
        self.assertEqual(against_counter, 16)
        self.assertGreaterEqual(by_formula, 5)


if __name__ == "__main__":
    sys.exit(junit_runner.run(PythonFirstHourTest))
