#!/usr/bin/env python3
"""The Python client (python/torchscan) as a user calls it: nn.Modules made here with the project
environment's torch (tests/project_python.sh runs this), compared and measured by real daemons (a private one per call, as without
daemon=, and a resident one named by daemon=), results saved, rendered and loaded back.

No timing verdict is asserted (other tests run beside this one): only what is exact, the
output check, the files, the errors and their exit codes. Run by bazel test from the
runfiles root; each test case goes to $XML_OUTPUT_FILE.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.abspath("python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ["TORCHSCAND"] = os.path.abspath("daemon/torchscand")
os.environ["TORCHSCAN_CLIENT"] = os.path.abspath("client/torchscan-client")
os.environ.pop("TORCHSCAN_DAEMON", None)

import torch  # noqa: E402

import junit_runner  # noqa: E402
import torchscan  # noqa: E402

FAST_MEASURE = dict(min_run_time=0.01, min_blocks=3, progress=False)
FAST = dict(FAST_MEASURE, rounds=1)


class SmallNet(torch.nn.Module):
    def __init__(self, seed=0):
        super().__init__()
        torch.manual_seed(seed)
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).mean(dim=(2, 3)))


class VarArgs(torch.nn.Module):
    """torch.jit.script cannot compile *args: the client traces it."""

    def forward(self, x, *rest):
        return torch.tanh(x) * 2


class DictOut(torch.nn.Module):
    """Neither torch.jit.script (*args) nor strict tracing (a dict output) takes it: strict=False does."""

    def forward(self, x, *rest):
        return {"y": torch.tanh(x)}


class PythonClientTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="python-client-")

    def tearDown(self):
        shutil.rmtree(self.folder, ignore_errors=True)

    def test_compare_two_modules_gives_a_checked_verdict_saved_as_the_cli_saves_it(self):
        x = torch.randn(4, 3, 16, 16)
        r = torchscan.compare(SmallNet(), SmallNet(), inputs=(x,), rtol=1e-5, atol=1e-6, **FAST)
        self.assertEqual(r.check, "passed")
        self.assertIn(r.label, ("faster", "slower", "within_variability", "unavailable"))
        self.assertIn(r.claim, ("faster", "slower", "equivalent", "no_claim"))
        self.assertTrue(r.job_id.startswith("job-"), r.job_id)
        self.assertEqual(r.how, {"baseline": "scripted (torch.jit.script)", "candidate": "scripted (torch.jit.script)"})
        self.assertGreater(r.before.median_s, 0)
        self.assertTrue(r.verdict, "the summary's first sentence")
        path = r.save(os.path.join(self.folder, "out"))
        self.assertTrue(os.path.isfile(path))
        page = open(os.path.join(self.folder, "out", "comparison.html"), encoding="utf-8").read()
        self.assertIn('id="verdict-sentence"', page)
        self.assertIn('id="verdict-sentence"', r._repr_html_())
        self.assertIn("passed", r.to_markdown())
        # The CLI reads what Python saved (strictly) and says the same.
        cli = subprocess.run([os.environ["TORCHSCAN_CLIENT"], "render", path, "--format", "terminal"],
                             capture_output=True, text=True)
        self.assertEqual(cli.returncode, 0, cli.stderr)
        self.assertIn(r.verdict, cli.stdout)
        loaded = torchscan._results.load(path)
        self.assertEqual((loaded.label, loaded.claim, loaded.check), (r.label, r.claim, r.check))
        saved = json.load(open(path, encoding="utf-8"))
        self.assertIn("python: SmallNet, scripted (torch.jit.script)", json.dumps(saved["before"]))

    def test_a_failed_output_check_is_a_result_and_fails_assert_not_slower(self):
        x = torch.randn(2, 3, 8, 8)
        r = torchscan.compare(SmallNet(0), SmallNet(1), inputs=(x,), rtol=0, atol=0, **FAST)
        self.assertEqual(r.check, "failed")
        self.assertEqual(r.label, "unavailable", "deltas and label are withheld when the check fails")
        with self.assertRaisesRegex(AssertionError, "the output check failed"):
            torchscan.assert_not_slower(SmallNet(0), SmallNet(1), inputs=(x,), rtol=0, atol=0, **FAST)

    def test_a_module_script_cannot_compile_is_traced_and_a_transform_makes_the_candidate(self):
        r = torchscan.compare(VarArgs(), None, inputs=((8, 16),), candidate_transform="freeze", rtol=1e-6, atol=1e-6,
                              **FAST)
        self.assertEqual(r.check, "passed")
        self.assertTrue(r.how["baseline"].startswith("traced"), r.how)
        self.assertEqual(r.proto.after.workload["freeze"], "true")

    def test_compiled_against_uncompiled_in_one_call_and_a_package_or_program_as_a_model(self):
        model = SmallNet().eval()
        x = torch.randn(2, 3, 8, 8)
        r = torchscan.compare(model, inputs=(x,), candidate_transform="aot_inductor", rtol=1e-4, atol=1e-5, **FAST)
        self.assertEqual(r.check, "passed", r.proto.output_check.message)
        self.assertEqual(r.how["baseline"], "scripted (torch.jit.script)")
        self.assertTrue(r.how["candidate"].startswith("compiled (torch.export.export on the inputs"), r.how)
        self.assertEqual(r.proto.after.workload["model"], "aot_inductor")
        self.assertIn("carried from the baseline", r.proto.after.profile.flops_per_call.diagnostics[0])
        # An ExportedProgram is compiled here; a .pt2 path is sent as it is.
        program = torch.export.export(model, (x,))
        m = torchscan.measure(program, inputs=(x,), **FAST_MEASURE)
        self.assertTrue(m.how["model"].startswith("compiled (aoti_compile_and_package of the ExportedProgram"), m.how)
        path = os.path.join(self.folder, "small.pt2")
        torch._inductor.aoti_compile_and_package(program, package_path=path)
        m = torchscan.measure(path, inputs=(x,), **FAST_MEASURE)
        self.assertEqual(m.how["model"], "file (AOTInductor package)")
        self.assertFalse(m.proto.profile.flops_per_call.complete, "a package's FLOPs alone are a lower bound")
        with self.assertRaises(torchscan.TorchScanError) as refused:
            torchscan.compare(model, inputs=(x,), candidate_transform=["aot_inductor", "bfloat16"], no_check=True,
                              **FAST)
        self.assertIn("aot_inductor compiles the model as it is", str(refused.exception))

    def test_dynamic_shapes_and_inductor_configs_pass_through_to_the_compiler(self):
        model = SmallNet().eval()
        x = torch.randn(2, 3, 8, 8)
        batch = torch.export.Dim("batch", min=1, max=64)
        r = torchscan.compare(model, inputs=(x,), candidate_transform="aot_inductor", dynamic_shapes=({0: batch},),
                              inductor_configs={"cpp.enable_kernel_profile": True}, rtol=1e-4, atol=1e-5, **FAST)
        self.assertEqual(r.check, "passed", r.proto.output_check.message)
        self.assertIn("the dynamic_shapes given", r.how["candidate"])
        # inductor_configs reached the compiler: the package's kernels carry markers the profile shows.
        self.assertIn("kernel marker", r.proto.after.profile.note)
        # The package made that way takes another batch; one made without takes only the inputs' shapes.
        from torchscan import _workload
        package, _ = _workload.export_and_compile(model, (x,), "candidate", ({0: batch},))
        path = os.path.join(self.folder, "dynamic.pt2")
        with open(path, "wb") as f:
            f.write(package)
        m = torchscan.measure(path, inputs=(torch.randn(5, 3, 8, 8),), **FAST_MEASURE)
        self.assertGreater(m.median_s, 0)
        with self.assertRaises(torchscan.TorchScanError) as refused:
            torchscan.compare(model, inputs=(x,), candidate_transform="freeze", dynamic_shapes=({0: batch},),
                              no_check=True, **FAST)
        self.assertIn("dynamic_shapes: applies to candidate_transform=\"aot_inductor\" only", str(refused.exception))

    def test_instruction_counts_gate_a_change_that_does_more_work(self):
        class Tanh(torch.nn.Module):
            def __init__(self, times):
                super().__init__()
                self.times = times

            def forward(self, x):
                for _ in range(self.times):
                    x = torch.tanh(x)
                return x

        with self.assertRaisesRegex(AssertionError, "fail_on slower: the instruction count says slower"):
            torchscan.assert_not_slower(Tanh(1), Tanh(3), inputs=((64, 256),), no_check=True, threads=1,
                                        gate_on="instructions", **FAST)
        r = torchscan.compare(Tanh(1), Tanh(1), inputs=((64, 256),), no_check=True, threads=1, instructions=True,
                              **FAST)
        self.assertIsNotNone(r.instructions, r.proto.instructions.unknown_reason)
        self.assertLess(abs(r.instructions), 0.001, "the same module counts the same")
        self.assertGreater(r.before.instructions, 0)
        self.assertIn("Instructions per call", r.to_markdown())

    def test_a_dict_output_is_traced_without_strict_and_the_result_says_so(self):
        m = torchscan.measure(DictOut(), inputs=(torch.randn(4, 8),), **FAST_MEASURE)
        self.assertTrue(m.how["model"].startswith("traced (torch.jit.trace(strict=False)"), m.how)
        self.assertGreater(m.median_s, 0)
        # The daemon's LibTorch is this torch (the project environment's): nothing to note.
        self.assertEqual(m.notes, [])
        self.assertEqual(m.proto.environment.libtorch_version.split("+")[0], torch.__version__.split("+")[0])

    def test_measure_on_a_shape_and_a_resident_daemon_named_by_daemon(self):
        socket_dir = tempfile.mkdtemp(prefix="pyd-", dir="/tmp")
        address = "unix:" + os.path.join(socket_dir, "d.sock")
        args = [os.environ["TORCHSCAND"], "--state-dir", os.path.join(self.folder, "state"), "--listen", address]
        if os.geteuid() == 0:
            args += ["--worker-user", "root"]
        daemon = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while not os.path.exists(address[len("unix:"):]) and time.monotonic() < deadline:
                time.sleep(0.1)
            m = torchscan.measure(SmallNet(), inputs=(4, 3, 16, 16), daemon=address, label="py", **FAST_MEASURE)
            self.assertGreater(m.median_s, 0)
            self.assertGreaterEqual(m.iqr_s, 0)
            self.assertIn("report.json", m.save(os.path.join(self.folder, "m")))
            listed = subprocess.run([os.environ["TORCHSCAN_CLIENT"], "--daemon", address, "jobs", "list"],
                                    capture_output=True, text=True)
            self.assertIn(m.job_id, listed.stdout, "the job ran on the daemon named")
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
            shutil.rmtree(socket_dir, ignore_errors=True)

    def test_errors_name_the_keyword_and_carry_the_clis_exit_code(self):
        x = torch.randn(2, 3, 8, 8)
        cases = [
            (lambda: torchscan.compare(SmallNet(), SmallNet(), inputs=(x,), **FAST), 2, "choose one output check"),
            (lambda: torchscan.compare(SmallNet(), SmallNet(), inputs=(x,), rtol=1e-3, **FAST), 2, "give both rtol"),
            (lambda: torchscan.compare("/etc/hostname", SmallNet(), inputs=(x,), no_check=True, **FAST), 2,
             "baseline: /etc/hostname is not a TorchScript module"),
            (lambda: torchscan.compare(SmallNet(), None, inputs=(x,), candidate_transform="fast", no_check=True,
                                       **FAST), 2, "candidate_transform: 'fast' is not one of"),
            (lambda: torchscan.measure(SmallNet(), inputs=("8x3",), **FAST_MEASURE), 2, "inputs[0]: a str is neither"),
            (lambda: torchscan.measure(SmallNet(), inputs=(x,), daemon="unix:/nonexistent/d.sock", **FAST_MEASURE), 4,
             "submit to unix:/nonexistent/d.sock"),
            (lambda: torchscan.measure(SmallNet(), inputs=(x,), daemon="localhost:1", token="t", **FAST_MEASURE), 2,
             "token: refusing to send a token to localhost:1 without TLS"),
            (lambda: torchscan.measure(SmallNet(), inputs=(x,), tls_ca="/etc/hostname", **FAST_MEASURE), 2,
             "tls_ca: unix sockets do not use TLS"),
            # device= reaches the daemon, which offers cpu only and says where a GPU job goes.
            (lambda: torchscan.measure(SmallNet(), inputs=(x,), device="cuda:0", **FAST_MEASURE), 2,
             "\"cuda:0\" is not a device of this daemon: it offers cpu"),
            (lambda: torchscan.compare(SmallNet(), SmallNet(), inputs=(x,), no_check=True, device="cuda:1", **FAST), 2,
             "or submit to a daemon on a GPU machine that offers cuda:1"),
        ]
        for call, code, words in cases:
            with self.assertRaises(torchscan.TorchScanError) as caught:
                call()
            self.assertEqual(caught.exception.exit_code, code, str(caught.exception))
            self.assertIn(words, str(caught.exception))
        # A job that fails on the daemon: exit code 3, with the worker's message.
        with self.assertRaises(torchscan.TorchScanError) as failed:
            torchscan.measure(SmallNet(), inputs=((2, 5, 8, 8),), **FAST_MEASURE)
        self.assertEqual(failed.exception.exit_code, 3, str(failed.exception))
        self.assertIn("failed", str(failed.exception))


    def test_files_and_modules_that_cannot_load_are_refused_before_submitting(self):
        x = torch.randn(2, 3, 8, 8)
        state_dict = os.path.join(self.folder, "state_dict.pt")
        torch.save(SmallNet().state_dict(), state_dict)
        with self.assertRaises(torchscan.TorchScanError) as data:
            torchscan.compare(state_dict, SmallNet(), inputs=(x,), no_check=True, **FAST)
        self.assertEqual(data.exception.exit_code, 2, str(data.exception))
        self.assertIn(f"baseline: {state_dict} holds data saved with torch.save", str(data.exception))
        # PyTorch 1.13 cannot load back what optimize_for_inference makes of a convolution.
        optimized = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.script(SmallNet().eval())))
        with self.assertRaises(torchscan.TorchScanError) as unloadable:
            torchscan.compare(SmallNet(), optimized, inputs=(x,), no_check=True, **FAST)
        self.assertEqual(unloadable.exception.exit_code, 2, str(unloadable.exception))
        self.assertIn("candidate: the ScriptModule does not load back", str(unloadable.exception))
        self.assertIn('candidate_transform="optimize_for_inference"', str(unloadable.exception))

    def test_progress_is_one_line_in_a_notebook_and_each_phase_once_in_a_log(self):
        program = (
            "import sys, types, torch\n"
            "if sys.argv[1] == 'notebook': sys.modules['ipykernel'] = types.ModuleType('ipykernel')\n"
            "import torchscan\n"
            "torchscan.compare(torch.nn.Linear(8, 8), torch.nn.Linear(8, 8), inputs=(torch.randn(4, 8),), "
            "no_check=True, min_run_time=0.05, min_blocks=3, rounds=10, fixed_length=True)\n")
        env = dict(os.environ, PYTHONPATH=os.path.abspath("python"))
        for where in ("notebook", "log"):
            done = subprocess.run([sys.executable, "-c", program, where], env=env, capture_output=True,
                                  timeout=300)  # bytes: text mode would turn each \r into a newline
            stderr = done.stderr.decode("utf-8", "replace")
            self.assertEqual(done.returncode, 0, stderr[-2000:])
            lines = [l for l in stderr.split("\n") if l.strip()]
            if where == "notebook":
                self.assertEqual(len(lines), 1, stderr)  # rewritten in place with \r
                self.assertIn("\r", lines[0])
                self.assertNotIn("\033[", stderr)       # no terminal codes a notebook would show
            else:
                self.assertEqual(len(lines), len(set(lines)), stderr)  # each phase once
                self.assertIn("timing baseline", stderr)

    def test_pip_install_into_a_fresh_venv_that_has_torch_gives_the_same(self):
        """`pip install ./python` from a checkout into a new venv whose torch is the project's (linked
        in, nothing else): grpcio and protobuf come as declared dependencies, the messages are
        generated at build time, and a comparison of two nn.Modules runs from that venv."""
        checkout = os.path.join(self.folder, "checkout")
        shutil.copytree("python", os.path.join(checkout, "python"),
                        ignore=shutil.ignore_patterns("_proto", "__pycache__"))
        os.makedirs(os.path.join(checkout, "python", "torchscan", "_proto"))
        shutil.copy("python/torchscan/_proto/__init__.py", os.path.join(checkout, "python", "torchscan", "_proto"))
        shutil.copytree("proto", os.path.join(checkout, "proto"), ignore=shutil.ignore_patterns("*.h", "*.cc", "BUILD*"))
        venv = os.path.join(self.folder, "venv")
        subprocess.run(["/usr/bin/python3", "-m", "venv", venv], check=True)
        site = subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import site; print(site.getsitepackages()[0])"],
                              capture_output=True, text=True, check=True).stdout.strip()
        project_site = os.path.dirname(os.path.dirname(torch.__file__))
        for entry in os.listdir(project_site):  # torch and what it imports; not the client's dependencies
            if entry.split("-")[0].split(".")[0].lower() in ("grpc", "grpcio", "grpc_tools", "grpcio_tools", "google",
                                                              "protobuf", "pip", "setuptools", "torchscan", "wheel",
                                                              "_distutils_hack", "distutils"):
                continue
            if not os.path.exists(os.path.join(site, entry)):
                os.symlink(os.path.join(project_site, entry), os.path.join(site, entry))
        pip = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", os.path.join(checkout, "python")],
                             capture_output=True, text=True)
        self.assertEqual(pip.returncode, 0, pip.stderr[-3000:])
        script = os.path.join(self.folder, "fresh.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write("import json, sys, torch, torchscan, google.protobuf, grpc\n"
                    "assert torchscan.__file__.startswith(sys.prefix), torchscan.__file__\n"
                    "r = torchscan.compare(torch.nn.Linear(8, 4), torch.nn.Linear(8, 4), inputs=(torch.randn(2, 8),),\n"
                    "                      rtol=1e-5, atol=1e-6, min_run_time=0.01, min_blocks=3, rounds=1,\n"
                    "                      progress=False)\n"
                    "print(json.dumps({'check': r.check, 'how': r.how, 'protobuf': google.protobuf.__version__}))\n")
        ran = subprocess.run([os.path.join(venv, "bin", "python"), script], capture_output=True, text=True, timeout=300)
        self.assertEqual(ran.returncode, 0, ran.stderr[-3000:])
        result = json.loads(ran.stdout.strip().splitlines()[-1])
        self.assertEqual(result["check"], "failed")  # two differently initialised Linear layers
        self.assertEqual(result["how"]["baseline"], "scripted (torch.jit.script)")

    def test_the_readmes_python_block_runs_verbatim(self):
        readme = open("README.md", encoding="utf-8").read()
        section = readme.index("\n### From Python\n")
        start = readme.index("```python\n", section) + len("```python\n")
        block = readme[start:readme.index("```\n", start)]
        script = os.path.join(self.folder, "readme.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(block)
        env = dict(os.environ, PYTHONPATH=os.path.abspath("python"))
        done = subprocess.run([sys.executable, script], cwd=self.folder, env=env, capture_output=True, text=True,
                              timeout=600)
        self.assertEqual(done.returncode, 0, done.stderr[-3000:])
        first = done.stdout.splitlines()[0].split()
        self.assertEqual(first[2], "passed", done.stdout)
        self.assertTrue(os.path.isfile(os.path.join(self.folder, "out", "comparison.html")))


if __name__ == "__main__":
    sys.exit(junit_runner.run(PythonClientTest))
