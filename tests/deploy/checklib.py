"""Shared pieces of the deploy/ tests: a collector of named checks that prints each result
and writes a JUnit file (so scripts/test.sh counts the cases), and readers for the deploy
files' formats (systemd units, the Containerfile, YAML manifests, sysusers).

Every reader raises ValueError naming the file and line for text it cannot read, which the
test that called it reports as a failed check.
"""

import json
import os
import shlex
import xml.etree.ElementTree as ET


class Checks:
    """Named checks of one test program. `check(name, ok, detail)` records one result;
    `run(name, fn)` records fn's result, where fn returns None (pass) or a failure text, and
    an exception fails the check with its message. `finish()` writes the JUnit file given
    by --xml and returns the exit status: 0 when every check passed."""

    def __init__(self, suite):
        self.suite = suite
        self.results = []  # (name, failure text or None)

    def check(self, name, ok, detail=""):
        failure = None if ok else (detail or "failed")
        self.results.append((name, failure))
        print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + failure), flush=True)
        return ok

    def run(self, name, fn, *args):
        try:
            failure = fn(*args)
        except Exception as e:  # a reader's ValueError, a missing file, a bad document
            failure = f"{type(e).__name__}: {e}"
        return self.check(name, failure is None, failure)

    def finish(self, xml_path=None):
        failed = [n for n, f in self.results if f]
        if xml_path:
            root = ET.Element("testsuites", tests=str(len(self.results)), failures=str(len(failed)), errors="0",
                              name=self.suite)
            suite = ET.SubElement(root, "testsuite", name=self.suite, tests=str(len(self.results)),
                                  failures=str(len(failed)), errors="0")
            for name, failure in self.results:
                case = ET.SubElement(suite, "testcase", name=name, classname=self.suite)
                if failure:
                    ET.SubElement(case, "failure", message=failure)
            ET.ElementTree(root).write(xml_path, encoding="UTF-8", xml_declaration=True)
        print(f"{self.suite}: {len(self.results) - len(failed)} passed, {len(failed)} failed")
        return 1 if failed or not self.results else 0


def xml_flag(argv):
    """The value of --xml FILE in argv (removed from it), or None."""
    if "--xml" in argv:
        i = argv.index("--xml")
        value = argv[i + 1]
        del argv[i:i + 2]
        return value
    return None


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def logical_lines(path, comment="#"):
    """(line number, text) of each logical line: backslash continuations joined, blank and
    comment lines dropped."""
    out = []
    pending, start = "", 0
    for number, raw in enumerate(read_text(path).splitlines(), 1):
        line = raw.rstrip()
        if not pending and (not line.strip() or line.lstrip().startswith(comment)):
            continue
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append((start, pending + line))
        pending = ""
    if pending:
        raise ValueError(f"{path}:{start}: the file ends inside a continued line")
    return out


def read_unit(path):
    """A systemd unit or drop-in as {section: [(key, value)]}, keys in order (repeats kept)."""
    sections, current = {}, None
    for number, line in logical_lines(path):
        line = line.strip()
        if line.startswith(";"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
        elif "=" in line and current is not None:
            key, value = line.split("=", 1)
            current.append((key.strip(), value.strip()))
        else:
            raise ValueError(f"{path}:{number}: neither a [Section] nor Key=Value: {line!r}")
    return sections


def unit_values(unit, section, key):
    """Every value of `key` in `section`; an empty assignment resets the list, as systemd does."""
    values = []
    for k, v in unit.get(section, []):
        if k == key:
            values = [] if v == "" else values + [v]
    return values


def exec_argv(value):
    """The argv of an ExecStart= value (prefixes such as '-' or '+' are refused: not used here)."""
    argv = shlex.split(value)
    if not argv or not argv[0].startswith("/"):
        raise ValueError(f"ExecStart={value!r}: the program must be an absolute path")
    return argv


def read_containerfile(path):
    """[(line number, INSTRUCTION, arguments text)] of a Containerfile."""
    out = []
    for number, line in logical_lines(path):
        word, _, rest = line.strip().partition(" ")
        out.append((number, word.upper(), rest.strip()))
    return out


def exec_form(text, where):
    """The argv of a JSON exec-form instruction (ENTRYPOINT ["a", "b"])."""
    try:
        argv = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{where}: not the JSON exec form: {e}")
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise ValueError(f"{where}: not a list of strings")
    return argv


def load_yaml_documents(path):
    import yaml  # Debian's python3-yaml (scripts/setup.sh)
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def daemonset_config(ds, configmaps):
    """(deployed --config path, ConfigMap text) of a DaemonSet's first container: the --config
    of its command + args, found through the configMap volume mounted above that path."""
    pod = ds["spec"]["template"]["spec"]
    container = pod["containers"][0]
    argv = list(container.get("command", [])) + list(container.get("args", []))
    if "--config" not in argv[:-1]:
        raise ValueError(f"{ds['metadata']['name']}: command + args have no --config FILE")
    path = argv[argv.index("--config") + 1]
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        cm = volumes.get(mount["name"], {}).get("configMap")
        folder = mount["mountPath"].rstrip("/") + "/"
        if not cm or not path.startswith(folder) or cm["name"] not in configmaps:
            continue
        data = configmaps[cm["name"]].get("data", {})
        for item in cm.get("items") or [{"key": k, "path": k} for k in data]:
            if folder + item["path"] == path and item["key"] in data:
                return path, data[item["key"]]
    raise ValueError(f"{ds['metadata']['name']}: no ConfigMap key is mounted at --config {path}")


# The programs the tests run, by their path in the runfiles (tests/deploy:programs).
PROGRAMS = {
    "torchscand": "daemon/torchscand",
    "torchscan-node-job": "daemon/torchscan-node-job",
    "torchscan-worker": "worker/torchscan-worker",
    "torchscan_rss_child": "passes/torchscan_rss_child",
    "torchscan-client": "client/torchscan-client",
}


def program(name):
    """The absolute path of one of PROGRAMS; ValueError when it is not built there."""
    path = os.path.abspath(PROGRAMS[name])
    if not os.access(path, os.X_OK):
        raise ValueError(f"{path} is not an executable file: run the test with bazel test //tests/deploy:all")
    return path
