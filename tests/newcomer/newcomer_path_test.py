"""README.md's newcomer path, verbatim, as a new user meets it after the README's first command:
a fresh login shell (env -i bash --login: the system's default PATH, nothing of this test's
environment) on a machine where the first command has installed the programs into
/usr/local/bin and the Python package into the project environment. Then, unchanged:
  - "### From Python": its second sh block (activating the project environment; the first, a
    venv of one's own with `pip install torch ./python`, downloads PyPI's 2.7 GB torch and is
    covered by //tests/python_client's fresh-venv case), then its python block, run by `python3`;
  - "### From the shell": its python block saved as save.py and run by `python3 save.py`, then
    its sh block, each command as written (the README's own /tmp/ts-* output folders);
  - "### The first hour": its first sh block sourced (the personal daemon started, the project
    environment activated), its python block run as a notebook cell by nbclient and ipykernel
    (the test's stand-in for Jupyter: NOTEBOOK_RUNNER), then its second sh block (the history
    page, the jobs, the daemon stopped).
No PATH, PYTHONPATH or program path is given to them: a command the README does not show, or a
program the first command does not install, fails the test.

The machine is not changed: as root the test runs in a private mount namespace (unshare) with
an empty tmpfs over /usr/local, holding only what scripts/install.sh installs (the programs,
from this build), over /tmp, and, over the project environment, a copy of its bin/ whose
site-packages links every package of the real one but torchscan, which is this build's.
Without root there is no such namespace, and the
test says it skipped (tag may_skip). No timing verdict is asserted: exit codes, the output check
and the files. Each case goes to $XML_OUTPUT_FILE.
"""

import json
import os
import shutil
import site
import subprocess
import sys
import xml.sax.saxutils

PROGRAMS = ["client/torchscan-client", "daemon/torchscand", "worker/torchscan-worker", "passes/torchscan_rss_child"]


def block(readme, heading, language, nth=0):
    """The nth fenced block of `language` after `heading` (and before the next heading of its level)."""
    start = readme.index("\n" + heading + "\n")
    end = readme.find("\n" + heading.split(" ")[0] + " ", start + 1)
    section = readme[start:end if end >= 0 else len(readme)]
    fence = "```" + language + "\n"
    at = -1
    for _ in range(nth + 1):
        at = section.index(fence, at + 1)
    return section[at + len(fence):section.index("```\n", at + len(fence))]


VENV = os.environ.get("TORCHSCAN_VENV") or "/opt/torchscan/venv"


def stage(root):
    """What the README's first command installs (scripts/install.sh /usr/local), from this build:
    /usr/local/bin, and the project environment with this build's torchscan. The environment is
    a farm: bin/ and pyvenv.cfg copied, site-packages of links into the real one, which the
    namespace shows at REAL (links to VENV itself would loop once the farm is mounted there)."""
    local = os.path.join(root, "usr-local")
    os.makedirs(os.path.join(local, "bin"))
    for program in PROGRAMS:
        shutil.copy2(program, os.path.join(local, "bin"))
    farm, real = os.path.join(root, "venv-farm"), os.path.join(root, "venv-real")
    os.makedirs(real)
    shutil.copytree(os.path.join(VENV, "bin"), os.path.join(farm, "bin"), symlinks=True)
    shutil.copy2(os.path.join(VENV, "pyvenv.cfg"), farm)
    site_rel = os.path.relpath(site.getsitepackages()[0], sys.prefix)
    packages = os.path.join(farm, site_rel)
    os.makedirs(packages)
    for entry in os.listdir(os.path.join(VENV, site_rel)):
        if not entry.startswith("torchscan"):
            os.symlink(os.path.join(real, site_rel, entry), os.path.join(packages, entry))
    shutil.copytree("python/torchscan", os.path.join(packages, "torchscan"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    for other in ("lib64", "include", "share"):
        if os.path.lexists(os.path.join(VENV, other)) and not os.path.lexists(os.path.join(farm, other)):
            os.symlink(os.path.join(real, other) if other != "lib64" else "lib", os.path.join(farm, other))
    return local, farm, real


NEWCOMER = r"""
set -e
cd "$HOME"
echo "PATH=$PATH"
. ./activate.sh
python3 readme_python.py > python.out
python3 save.py
bash -e shell.sh > shell.out
cp -r /tmp/ts-measure /tmp/ts-compare "$HOME/"
trap 'torchscan-client daemon stop > /dev/null 2>&1 || true' EXIT
. ./first_hour_start.sh > first_hour_start.out
python3 run_notebook.py first_hour_cell.py notebook.html
bash -e first_hour_end.sh > first_hour_end.out
cp -r /tmp/ts-history "$HOME/"
"""

# Jupyter's part: runs the README's cell in a fresh notebook on this environment's ipykernel
# and writes what the cell displayed (its text/html) to a file.
NOTEBOOK_RUNNER = r"""
import sys
import nbclient, nbformat
cell = open(sys.argv[1]).read()
notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
nbclient.NotebookClient(notebook, timeout=900, kernel_name="python3").execute()
shown = [o for o in notebook.cells[0].outputs if o.output_type == "execute_result"]
open(sys.argv[2], "w").write(shown[0].data["text/html"] if shown else "")
"""

INSIDE = r"""
set -e
mount -t tmpfs tmpfs /usr/local
cp -a "$STAGE/." /usr/local/
mount --bind "$VENV" "$REAL"
mount --bind "$FARM" "$VENV"
mount -t tmpfs tmpfs /tmp
exec env -i HOME="$NEWHOME" TERM=dumb LANG=C.UTF-8 bash --login -c "$NEWCOMER"
"""


def run_newcomer(root):
    readme = open("README.md", encoding="utf-8").read()
    home = os.path.join(root, "home")
    os.makedirs(home)
    with open(os.path.join(home, "activate.sh"), "w") as f:
        f.write(block(readme, "### From Python", "sh", nth=1))
    with open(os.path.join(home, "readme_python.py"), "w") as f:
        f.write(block(readme, "### From Python", "python"))
    with open(os.path.join(home, "save.py"), "w") as f:
        f.write(block(readme, "### From the shell", "python"))
    with open(os.path.join(home, "shell.sh"), "w") as f:
        f.write(block(readme, "### From the shell", "sh"))
    hour = "### The first hour: a personal daemon, a notebook, a history"
    for name, text in (("first_hour_start.sh", block(readme, hour, "sh")),
                       ("first_hour_cell.py", block(readme, hour, "python")),
                       ("first_hour_end.sh", block(readme, hour, "sh", nth=1)),
                       ("run_notebook.py", NOTEBOOK_RUNNER)):
        with open(os.path.join(home, name), "w") as f:
            f.write(text)
    local, farm, real = stage(root)
    env = {"STAGE": local, "FARM": farm, "REAL": real, "VENV": VENV, "NEWHOME": home, "NEWCOMER": NEWCOMER,
           "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c", INSIDE], env=env,
                          capture_output=True, text=True, timeout=1500)
    return done, home


def cases(done, home):
    """(name, failure or "") for each thing the newcomer must see."""
    out = []
    said = f"exit {done.returncode}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    out.append(("the README's blocks run in a fresh login shell with the default PATH",
                "" if done.returncode == 0 else said))
    path = next((l[5:] for l in done.stdout.splitlines() if l.startswith("PATH=")), "")
    out.append(("the shell's PATH is the system's default, holding /usr/local/bin",
                "" if "/usr/local/bin" in path.split(":") and "bazel" not in path else f"PATH was {path!r}"))
    python_out = os.path.join(home, "python.out")
    first = open(python_out).read().split("\n")[0].split() if os.path.exists(python_out) else []
    out.append(("From Python: a verdict with the output check passed, and out/comparison.html",
                "" if len(first) >= 3 and first[2] == "passed" and os.path.isfile(os.path.join(home, "out",
                                                                                            "comparison.html"))
                else f"python.out starts {first}; {said}"))
    compared = os.path.join(home, "ts-compare", "comparison.json")
    check = json.load(open(compared))["output_check"]["status"] if os.path.exists(compared) else "missing"
    out.append(("From the shell: compare wrote comparison.json with the check passed",
                "" if check == "passed" else f"comparison.json: check {check}; {said}"))
    measured = os.path.join(home, "ts-measure", "report.json")
    out.append(("From the shell: measure wrote report.json",
                "" if os.path.exists(measured) else f"no {measured}; {said}"))
    shown = os.path.join(home, "notebook.html")
    html = open(shown, encoding="utf-8").read() if os.path.exists(shown) else ""
    out.append(("The first hour: the notebook cell shows the compact view, under 150 KB",
                "" if 'id="verdict-sentence"' in html and len(html.encode()) < 150 * 1024
                else f"notebook.html: {len(html)} characters; {said}"))
    started = os.path.join(home, "first_hour_start.out")
    ended = os.path.join(home, "first_hour_end.out")
    text = "".join(open(p, encoding="utf-8").read() for p in (started, ended) if os.path.exists(p))
    page = os.path.join(home, "ts-history", "history.html")
    out.append(("The first hour: the personal daemon kept the job, its history page and the jobs list",
                "" if "the personal torchscand runs" in text and os.path.exists(page) and "job-" in text
                and "stopped" in text else f"history.html {os.path.exists(page)}; said: {text[-1500:]}; {said}"))
    return out


def write_junit(results, skipped_reason=None):
    path = os.environ.get("XML_OUTPUT_FILE")
    if not path:
        return
    rows = []
    for name, failure in results:
        body = (f"<skipped message={xml.sax.saxutils.quoteattr(skipped_reason)}/>" if skipped_reason else
                f"<failure message={xml.sax.saxutils.quoteattr(failure[:4000])}/>" if failure else "")
        rows.append(f'<testcase classname="newcomer_path_test" name={xml.sax.saxutils.quoteattr(name)}>{body}'
                    "</testcase>")
    failed = sum(1 for _, f in results if f and not skipped_reason)
    with open(path, "w") as f:
        f.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="newcomer_path_test" '
                f'tests="{len(results)}" failures="{failed}">{"".join(rows)}</testsuite></testsuites>\n')


def main():
    if os.geteuid() != 0:
        reason = "needs root for a private mount namespace over /usr/local and /tmp (CI runs as root)"
        print("SKIPPED:", reason)
        write_junit([("the README's newcomer path", "")], skipped_reason=reason)
        return 0
    root = os.path.join(os.environ.get("TEST_TMPDIR", "/var/tmp"), "newcomer")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    os.chmod(root, 0o755)
    done, home = run_newcomer(root)
    results = cases(done, home)
    for name, failure in results:
        print(("FAIL " if failure else "PASS ") + name + (": " + failure if failure else ""))
    write_junit(results)
    return 1 if any(f for _, f in results) else 0


if __name__ == "__main__":
    sys.exit(main())
