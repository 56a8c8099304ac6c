#!/usr/bin/env python3
"""Counts the tests of one `bazel test` run, each test case by its own result.

Usage: count_test_results.py EVENTS.json
  EVENTS.json: the file `bazel test --build_event_json_file=EVENTS.json` wrote.

The events name every test target of the run, its tags, whether it built, and for each test
attempt Bazel's status and the test.xml it kept: GoogleTest's, a test's own JUnit file, or the
one Bazel writes from the exit status when a test wrote none (one case, with an <error> when
the exit status was not 0). Of the last attempt of each target, every <testcase> is
  failed   with a <failure> or <error> child;
  skipped  with a <skipped> child, result="skipped" or "suppressed", or status="notrun"
           (GTEST_SKIP, a DISABLED_ test, each test of a suite whose SetUpTestSuite failed);
  passed   otherwise.
A target adds one failed test of its own when it did not build, has no result, no readable
test.xml or one with no test case, or when Bazel says it failed (exit status, timeout) while
its test.xml lists no failed case (a failed SetUpTestSuite, a crash after the report).
Targets the command filtered out (built, never to be tested) are not counted.

Prints the skipped tests with their reasons, the failed ones, and the closing line
"tests: N passed, N failed, N skipped". Exit status 0 only when nothing failed and every
skipped test belongs to a target tagged `may_skip` (tests that need what this machine may
lack, such as CUDA): any other skip is a test that must run here and did not. 1 otherwise.
"""

import json
import os
import re
import sys
import urllib.parse
import xml.etree.ElementTree as ET

MAY_SKIP = "may_skip"


class Target:
    def __init__(self, label, tags):
        self.label = label
        self.tags = tags
        self.completed = None  # None: no completion event; else whether it built
        self.to_test = False  # Bazel announced a test summary: it was to be tested
        self.attempts = {}  # (run, shard) -> (attempt, status, test.xml path or None)


def read_targets(events_path):
    """The test targets of the run, by label."""
    targets = {}
    with open(events_path, encoding="utf-8") as f:
        events = [json.loads(line) for line in f if line.strip()]
    for e in events:
        kind, key = next(iter(e["id"].items()))
        if kind == "targetConfigured" and e.get("configured", {}).get("targetKind", "").endswith("_test rule"):
            targets[key["label"]] = Target(key["label"], e["configured"].get("tag", []))
    for e in events:
        kind, key = next(iter(e["id"].items()))
        target = targets.get(key.get("label")) if isinstance(key, dict) else None
        if target is None:
            continue
        if kind == "targetCompleted":
            target.completed = bool(e.get("completed", {}).get("success"))
            target.to_test = any("testSummary" in child for child in e.get("children", []))
        elif kind == "testResult" and "testResult" in e:
            result = e["testResult"]
            xml = next((o["uri"] for o in result.get("testActionOutput", []) if o["name"] == "test.xml"), None)
            slot = (key.get("run", 1), key.get("shard", 1))
            attempt = key.get("attempt", 1)
            if attempt >= target.attempts.get(slot, (0,))[0]:
                target.attempts[slot] = (attempt, result.get("status", "NO_STATUS"), xml)
    return targets


def first_line(text):
    """A message without GoogleTest's leading "file:line" line, on one line."""
    lines = (text or "").strip().split("\n")
    if re.fullmatch(r"\S+:\d+", lines[0]):
        lines = lines[1:]
    return " ".join(line.strip() for line in lines if line.strip())


def read_cases(uri):
    """(name, outcome, reason) of each test case in a test.xml; raises ValueError when there
    is no readable file or it holds no test case."""
    if not uri:
        raise ValueError("no test.xml")
    path = urllib.parse.unquote(urllib.parse.urlparse(uri).path)
    if not os.path.isfile(path):
        raise ValueError(f"no test.xml at {path}")
    if os.path.getsize(path) == 0:
        raise ValueError(f"empty test.xml (the test stopped before writing it?): {path}")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise ValueError(f"unreadable test.xml ({e}): {path}")
    cases = []
    for case in root.iter("testcase"):
        name = ".".join(part for part in (case.get("classname"), case.get("name")) if part)
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        skipped = case.find("skipped")
        if bad is not None:
            cases.append((name, "failed", first_line(bad.get("message") or bad.text)))
        elif skipped is not None or case.get("result") == "skipped":
            reason = first_line(skipped.get("message") or skipped.text) if skipped is not None else ""
            cases.append((name, "skipped", reason or "no reason given (GoogleTest gives none to the tests of a "
                                                     "suite whose SetUpTestSuite failed)"))
        elif case.get("result") == "suppressed" or case.get("status") == "notrun":
            cases.append((name, "skipped", "disabled (DISABLED_ prefix)"))
        else:
            cases.append((name, "passed", ""))
    if not cases:
        raise ValueError(f"test.xml lists no test case: {path}")
    return cases


def count(targets):
    """Lists of (label, test name, text): passed, failed, allowed skips, skips that must run."""
    passed, failed, allowed, must_run = [], [], [], []
    for t in sorted(targets.values(), key=lambda t: t.label):
        if t.completed is None:
            failed.append((t.label, "", "did not complete (the run stopped before it)"))
        elif not t.completed:
            failed.append((t.label, "", "did not build"))
        elif t.to_test and not t.attempts:
            failed.append((t.label, "", "no test result"))
        for (run, shard), (_, status, uri) in sorted(t.attempts.items()):
            try:
                cases = read_cases(uri)
            except ValueError as e:
                failed.append((t.label, "", f"{status}: {e}"))
                continue
            if status != "PASSED" and all(outcome != "failed" for _, outcome, _ in cases):
                failed.append((t.label, "", f"{status}, yet its test.xml lists no failed case (a failed "
                                            "SetUpTestSuite, or a crash after the report was written?)"))
            for name, outcome, text in cases:
                name = "" if name == t.label[2:].replace(":", "/").lstrip("/") else name  # Bazel's own case
                if outcome == "skipped":
                    (allowed if MAY_SKIP in t.tags else must_run).append((t.label, name, text))
                else:
                    (passed if outcome == "passed" else failed).append((t.label, name, text))
    return passed, failed, allowed, must_run


def show(title, rows):
    if rows:
        print(title)
        for label, name, text in rows:
            print(f"  {label}{'  ' + name if name else ''}{': ' + text if text else ''}")


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    targets = read_targets(argv[1])
    passed, failed, allowed, must_run = count(targets)
    show(f"skipped, allowed here (targets tagged {MAY_SKIP}):", allowed)
    show("skipped, but must run here:", must_run)
    show("failed:", failed)
    print(f"tests: {len(passed)} passed, {len(failed)} failed, {len(allowed) + len(must_run)} skipped")
    if not targets:
        print("no test target in this run")
        return 1
    if must_run:
        print(f"{len(must_run)} skipped test(s) must run here: only targets tagged {MAY_SKIP} may skip")
    return 1 if failed or must_run else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
