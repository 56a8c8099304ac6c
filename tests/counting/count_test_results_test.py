#!/usr/bin/python3
"""scripts/count_test_results.py on real test reports of every kind it must tell apart.

Run by bazel test from the runfiles root. The test.xml files come from their real writers: a
GoogleTest 1.12 binary (tests/counting/gtest_outcomes) run once per outcome, the browser
test's skip path (tests/browser/browser_test.sh without Chromium), and, checked in, the file
Bazel 4.2.3 writes for a test that wrote none and died of a signal (bazel_exit_139.xml). The
build events around them have the shape `bazel test --build_event_json_file` gives them
(Bazel 4.2.3): targetConfigured (kind, tags), targetCompleted (built; children announce the
test summary), testResult (attempt, status, test.xml).
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

COUNTER = "scripts/count_test_results.py"
OUTCOMES = "tests/counting/gtest_outcomes"
CRASHED = "tests/counting/bazel_exit_139.xml"
BROWSER_TEST = "tests/browser/browser_test.sh"

# What Bazel sets for this test, which the binaries run here must not inherit.
PARENT_TEST_ENV = ("GTEST_", "TEST_PREMATURE_EXIT_FILE", "TEST_SHARD", "TEST_TOTAL_SHARDS", "XML_OUTPUT_FILE")


def child_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(PARENT_TEST_ENV)}
    env.update(extra)
    return env


class Run:
    """The build events of one `bazel test` run, and the counter's verdict on them."""

    def __init__(self, folder):
        self.folder = folder
        self.events = []

    def target(self, label, xml=None, status="PASSED", tags=(), kind="cc_test rule", built=True, to_test=True,
               attempts=None):
        """A test target; `attempts` [(status, xml), ...] in order, else one (status, xml)
        when xml is given. built=None: the run stopped before the target completed."""
        configured = {"targetKind": kind, "testSize": "MEDIUM"}
        if tags:
            configured["tag"] = list(tags)
        self.events.append({"id": {"targetConfigured": {"label": label}}, "configured": configured})
        if built is not None:
            children = [{"testResult": {"label": label}}, {"testSummary": {"label": label}}] if to_test else []
            completed = {"success": True} if built else {"failureDetail": {"message": "compilation failed"}}
            self.events.append({"id": {"targetCompleted": {"label": label}}, "children": children,
                                "completed": completed})
        for n, (attempt_status, attempt_xml) in enumerate(attempts or ([(status, xml)] if xml else []), 1):
            self.events.append({"id": {"testResult": {"label": label, "run": 1, "shard": 1, "attempt": n}},
                                "testResult": {"status": attempt_status, "testActionOutput": [
                                    {"name": "test.log", "uri": "file://" + attempt_xml + ".log"},
                                    {"name": "test.xml", "uri": "file://" + attempt_xml}]}})
        return self

    def count(self):
        """(exit status, printed text, (passed, failed, skipped)) of the counter."""
        events = os.path.join(self.folder, f"events-{len(os.listdir(self.folder))}.json")
        with open(events, "w") as f:
            f.writelines(json.dumps(e) + "\n" for e in self.events)
        r = subprocess.run([sys.executable, COUNTER, events], capture_output=True, text=True)
        closing = re.findall(r"^tests: (\d+) passed, (\d+) failed, (\d+) skipped$", r.stdout, re.M)
        assert len(closing) == 1, f"no single closing line in:\n{r.stdout}{r.stderr}"
        return r.returncode, r.stdout, tuple(int(n) for n in closing[0])


class CountTestResults(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.run_ = Run(self.folder)

    def gtest(self, name, gtest_filter):
        """The test.xml GoogleTest writes for the tests that `gtest_filter` selects, and the
        status Bazel would give the run (from the exit status)."""
        xml = os.path.join(self.folder, name + ".xml")
        r = subprocess.run([OUTCOMES, "--gtest_filter=" + gtest_filter,
                            "--gtest_output=xml:" + xml], capture_output=True, text=True, env=child_env())
        self.assertTrue(os.path.isfile(xml), r.stdout + r.stderr)
        return xml, "PASSED" if r.returncode == 0 else "FAILED"

    def file(self, name, text):
        path = os.path.join(self.folder, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_passed_failed_skipped_and_disabled_cases_are_counted_apart(self):
        xml, status = self.gtest("all", "*")
        self.assertEqual(status, "FAILED")
        code, out, counts = self.run_.target("//t:outcomes_test", xml, status).count()
        # Passes; Fails; SkipsWithAReason, DISABLED_IsDisabled and BrokenSetUp's two tests.
        self.assertEqual(counts, (1, 1, 4), out)
        self.assertEqual(code, 1, out)
        self.assertIn("//t:outcomes_test  Outcomes.Fails: Expected equality", out)
        self.assertIn("//t:outcomes_test  Outcomes.SkipsWithAReason: needs a CUDA build and a visible GPU", out)
        self.assertIn("//t:outcomes_test  Outcomes.DISABLED_IsDisabled: disabled (DISABLED_ prefix)", out)

    def test_a_skip_fails_the_run_unless_its_target_is_tagged_may_skip(self):
        xml, status = self.gtest("skip", "Outcomes.Passes:Outcomes.SkipsWithAReason")
        self.assertEqual(status, "PASSED")
        code, out, counts = Run(self.folder).target("//t:must_run_test", xml, status).count()
        self.assertEqual((code, counts), (1, (1, 0, 1)), out)
        self.assertIn("skipped, but must run here:\n  //t:must_run_test  Outcomes.SkipsWithAReason", out)
        code, out, counts = Run(self.folder).target("//t:cuda_test", xml, status, tags=["may_skip"]).count()
        self.assertEqual((code, counts), (0, (1, 0, 1)), out)
        self.assertIn("skipped, allowed here (targets tagged may_skip):\n  //t:cuda_test  Outcomes.SkipsWithAReason",
                      out)

    def test_a_failed_suite_set_up_is_a_failure_though_its_xml_shows_only_skips(self):
        xml, status = self.gtest("setup", "BrokenSetUp.*")
        with open(xml) as f:
            report = f.read()
        self.assertNotIn("<failure", report)  # the premise: GoogleTest 1.12 records no failure
        self.assertEqual(report.count('result="skipped"'), 2, report)
        self.assertEqual(status, "FAILED")
        code, out, counts = self.run_.target("//t:setup_test", xml, status, tags=["may_skip"]).count()
        self.assertEqual((code, counts), (1, (0, 1, 2)), out)
        self.assertIn("//t:setup_test: FAILED, yet its test.xml lists no failed case", out)
        self.assertIn("no reason given", out)

    def test_a_test_that_crashed_before_writing_its_report_is_failed(self):
        code, out, counts = self.run_.target("//p:crash_test", os.path.abspath(CRASHED), "FAILED",
                                             kind="sh_test rule").count()
        self.assertEqual((code, counts), (1, (0, 1, 0)), out)
        self.assertIn("failed:\n  //p:crash_test: exited with error code 139", out)

    def test_a_missing_empty_or_unreadable_report_is_failed(self):
        run = self.run_.target("//t:no_xml_test", os.path.join(self.folder, "absent.xml"))
        run.target("//t:empty_xml_test", self.file("empty.xml", ""))
        run.target("//t:broken_xml_test", self.file("broken.xml", "<testsuites><testsuite>"))
        run.target("//t:no_case_test", self.file("no_case.xml", "<testsuites><testsuite/></testsuites>"))
        code, out, counts = run.count()
        self.assertEqual((code, counts), (1, (0, 4, 0)), out)
        for text in ("//t:no_xml_test: PASSED: no test.xml at", "//t:empty_xml_test: PASSED: empty test.xml",
                     "//t:broken_xml_test: PASSED: unreadable test.xml", "//t:no_case_test: PASSED: test.xml lists no"):
            self.assertIn(text, out)

    def test_targets_that_did_not_build_or_run_are_failed_and_filtered_ones_not_counted(self):
        xml, status = self.gtest("pass", "Outcomes.Passes")
        run = self.run_.target("//t:ran_test", xml, status)
        run.target("//t:unbuilt_test", built=False)
        run.target("//t:no_result_test")  # built and due, no result
        run.target("//t:stopped_test", built=None)
        run.target("//t:filtered_test", to_test=False)  # e.g. --test_tag_filters
        code, out, counts = run.count()
        self.assertEqual((code, counts), (1, (1, 3, 0)), out)
        for text in ("//t:unbuilt_test: did not build", "//t:no_result_test: no test result",
                     "//t:stopped_test: did not complete"):
            self.assertIn(text, out)
        self.assertNotIn("filtered_test", out)

    def test_the_last_attempt_decides(self):
        failed, failed_status = self.gtest("attempt1", "Outcomes.Fails")
        passed, passed_status = self.gtest("attempt2", "Outcomes.Passes")
        run = self.run_.target("//t:flaky_test", attempts=[(failed_status, failed), (passed_status, passed)])
        code, out, counts = run.count()
        self.assertEqual((code, counts), (0, (1, 0, 0)), out)

    def test_the_browser_test_without_chromium_is_a_skip_that_fails_the_run(self):
        xml = os.path.join(self.folder, "browser.xml")
        r = subprocess.run([BROWSER_TEST], capture_output=True, text=True,
                           env=child_env(TORCHSCAN_TEST_CHROMIUM="/nonexistent/chromium", XML_OUTPUT_FILE=xml))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("SKIPPED: /nonexistent/chromium is absent", r.stdout)
        code, out, counts = self.run_.target("//tests/browser:browser_test", xml, kind="sh_test rule").count()
        self.assertEqual((code, counts), (1, (0, 0, 1)), out)
        self.assertIn("skipped, but must run here:\n  //tests/browser:browser_test  BrowserTest.PagesInChromium: "
                      "/nonexistent/chromium is absent", out)

    def test_a_run_without_test_targets_is_not_a_pass(self):
        code, out, counts = self.run_.count()
        self.assertEqual((code, counts), (1, (0, 0, 0)), out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
