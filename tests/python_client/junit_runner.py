"""Runs one unittest.TestCase class verbosely and writes each case to $XML_OUTPUT_FILE (the
JUnit file Bazel keeps, which scripts/test.sh counts). Returns the process's exit status."""

import os
import unittest
import xml.sax.saxutils


class _JUnit(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cases = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.cases.append((test.id(), ""))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.cases.append((test.id(), self._exc_info_to_string(err, test)))

    def addError(self, test, err):
        super().addError(test, err)
        self.cases.append((test.id(), self._exc_info_to_string(err, test)))


def run(case_class):
    runner = unittest.TextTestRunner(resultclass=_JUnit, verbosity=2)
    result = runner.run(unittest.defaultTestLoader.loadTestsFromTestCase(case_class))
    name = case_class.__name__
    xml_path = os.environ.get("XML_OUTPUT_FILE")
    if xml_path:
        failed = sum(1 for _, f in result.cases if f)
        cases = "\n".join(
            f'<testcase name="{n.split(".")[-1]}" classname="{name}">'
            + (f"<failure message={xml.sax.saxutils.quoteattr(f[-2000:])}/>" if f else "") + "</testcase>"
            for n, f in result.cases)
        with open(xml_path, "w", encoding="utf-8") as out:
            out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="{len(result.cases)}" '
                      f'failures="{failed}"><testsuite name="{name}" tests="{len(result.cases)}" '
                      f'failures="{failed}">\n{cases}\n</testsuite></testsuites>\n')
    return 0 if result.wasSuccessful() else 1
