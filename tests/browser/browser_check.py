"""Loads HTML pages in headless Chromium with no network and checks them like a reader would.

Usage: browser_check.py --chromium PATH --screenshots DIR [--xml FILE] PAGE.html...

For every page, from a file:// URL in one fresh headless Chromium (driven over the DevTools
protocol on --remote-debugging-pipe; standard library only):
  - no request other than the page itself (Network.requestWillBeSent), no JavaScript
    exception, console error, log error or dialog;
  - no <script> element, a non-empty title and body, and on hostile pages the text
    "<script>alert(1)</script>" shown as text;
  - one timing plot, and beside each phase timeline table a bar chart whose every bar is
    laid out (the passed comparison must have one, the daemon job two);
  - every <details> starts closed; opening the first raw-blocks section makes its hidden
    table visible and the section taller;
  - 1280x2000 screenshots: the top of the page as DIR/<page>.png, and the opened raw blocks
    as DIR/<page>.details-open.png.
Every page, notebook views included, is laid out as a reader needs (LAYOUT): no text over
text, no text outside its picture or on the timing plot's blocks, no negative ratio on an axis,
no section, card or table wider than its box; the worst cases (outlier_comparison) mark and count
their outlier and show no bare p-value. Notebook views (a name ending in "_notebook") get the
request, error and layout checks, one timing plot, no <details>, no style leaking onto the page
around them, at most 150 KB, and a screenshot.
History pages (a name with "history" in it; report/history_html.h) get, after the same
request, error and hostile-text checks: one chart whose point markers are laid out, each an
SVG link; every link of the chart and of the jobs table leads to a file that exists (and every
in-page link to an element that exists); every job row that is not marked as a non-point
links to its report; a screenshot DIR/<page>.png.
A control page with an external image and a thrown error must be caught by the same checks,
so a silent detector fails the run. Chromium runs in a new network namespace when
`unshare -rn` works here, and always with a resolver and proxy that lead nowhere.
Exit status 0 when every page passes; the --xml file is a JUnit report (one case per page).
"""

import argparse
import base64
import fcntl
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import xml.sax.saxutils

TIMEOUT_S = 60


class Browser:
    """A headless Chromium and one page target, over --remote-debugging-pipe (fds 3 and 4)."""

    def __init__(self, chromium, profile):
        # Chromium reads commands from fd 3 and writes replies to fd 4. Our ends are moved
        # above 10 first so that placing them at 3 and 4 in the child cannot clobber each other.
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        child_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD_CLOEXEC, 10)
        child_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
            "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9",
            "--window-size=1280,2000", "--enable-logging=stderr", "--v=0", "--remote-debugging-pipe",
            f"--user-data-dir={profile}",
            "about:blank",
        ]
        prefix = ["unshare", "-rn"] if _unshare_works() else []
        argv = prefix + [chromium] + flags
        self._pid = os.posix_spawnp(argv[0], argv, dict(os.environ, HOME=profile), file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, os.path.join(profile, "chromium.log"), os.O_WRONLY | os.O_CREAT, 0o644),
            (os.POSIX_SPAWN_DUP2, child_r, 3),
            (os.POSIX_SPAWN_DUP2, child_w, 4),
        ])
        os.close(child_r)
        os.close(child_w)
        self.isolated = bool(prefix)
        self._next_id = 0
        self._buffer = b""
        self.events = []
        self._session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Network", "Runtime", "Log", "Page"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 2000, "deviceScaleFactor": 1, "mobile": False})

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None):
        self._next_id += 1
        request = {"id": self._next_id, "method": method, "params": params or {}}
        if self._session and not method.startswith("Target."):
            request["sessionId"] = self._session
        os.write(self._to_chrome, json.dumps(request).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            message = self._read_message(deadline)
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_for(self, method):
        deadline = time.monotonic() + TIMEOUT_S
        while not any(e["method"] == method for e in self.events):
            message = self._read_message(deadline)
            if "method" in message:
                self.events.append(message)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluation failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:  # already gone
            pass
        deadline = time.monotonic() + 10
        while os.waitpid(self._pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(self._pid, signal.SIGKILL)
                os.waitpid(self._pid, 0)
                break
            time.sleep(0.05)
        os.close(self._to_chrome)
        os.close(self._from_chrome)


def _unshare_works():
    try:
        return subprocess.run(["unshare", "-rn", "true"], stderr=subprocess.DEVNULL, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def problems_on_page(browser, url):
    """Loads `url` and returns what a reader should never meet: requests, errors, dialogs."""
    browser.events.clear()
    browser.call("Page.navigate", {"url": url})
    browser.wait_for("Page.loadEventFired")
    browser.evaluate("new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)))")
    found = []
    for event in browser.events:
        method, params = event["method"], event.get("params", {})
        if method == "Network.requestWillBeSent" and params["request"]["url"] != url:
            found.append(f"request to {params['request']['url']}")
        elif method == "Network.loadingFailed" and params.get("type") != "Document":
            found.append(f"failed load: {params.get('errorText')}")
        elif method == "Runtime.exceptionThrown":
            found.append(f"JavaScript exception: {params['exceptionDetails'].get('text')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            found.append(f"console {params['type']}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            found.append(f"log error: {params['entry']['text']}")
        elif method == "Page.javascriptDialogOpening":
            found.append(f"dialog: {params.get('message')}")
            browser.call("Page.handleJavaScriptDialog", {"accept": True})
    return found


def hostile_text_problems(browser, path):
    if pathlib.Path(path).stem.startswith("hostile") and not browser.evaluate(
            "document.body.innerText.includes('<script>alert(1)</script>')"):
        return ["a hostile name is not shown as text"]
    return []


def check_history_page(browser, path, screenshots):
    url = pathlib.Path(path).resolve().as_uri()
    failures = problems_on_page(browser, url) + hostile_text_problems(browser, path)
    facts = browser.evaluate("""({
        scripts: document.querySelectorAll('script').length,
        title: document.title,
        svgs: document.querySelectorAll('svg').length,
        markers: [...document.querySelectorAll('#chart svg circle')].map(c => {
            const box = c.getBoundingClientRect();
            return {linked: c.parentElement.tagName === 'a', width: box.width};
        }),
        chart_links: [...document.querySelectorAll('#chart svg a')].map(
            a => new URL(a.getAttribute('href'), document.baseURI).href),
        table_links: [...document.querySelectorAll('#jobs tbody a')].map(a => a.href),
        point_rows: document.querySelectorAll('#jobs tbody tr:not(.unknown)').length,
        linked_rows: document.querySelectorAll('#jobs tbody tr:not(.unknown) td:first-child a').length,
        missing_anchors: [...document.querySelectorAll('a[href^="#"]')].map(a => a.getAttribute('href'))
            .filter(h => !document.getElementById(h.slice(1))),
    })""")
    if facts["scripts"]:
        failures.append(f"{facts['scripts']} <script> elements")
    if not facts["title"]:
        failures.append("empty title")
    if facts["svgs"] != 1 or not facts["markers"]:
        failures.append(f"expected one chart with markers, found {facts['svgs']} SVGs, {len(facts['markers'])} markers")
    if any(not m["linked"] or m["width"] <= 0 for m in facts["markers"]):
        failures.append("a point marker is not drawn or not linked")
    if facts["point_rows"] == 0 or facts["linked_rows"] != facts["point_rows"]:
        failures.append(f"{facts['linked_rows']} of {facts['point_rows']} point rows link to a report")
    for link in sorted(set(facts["chart_links"] + facts["table_links"])):
        if link.startswith(url + "#"):
            continue
        target = pathlib.Path(urllib.parse.unquote(urllib.parse.urlparse(link).path))
        if not link.startswith("file://") or not target.is_file():
            failures.append(f"a link leads to no file: {link}")
    if facts["missing_anchors"]:
        failures.append(f"in-page links to nothing: {facts['missing_anchors'][:5]}")
    screenshot(browser, os.path.join(screenshots, pathlib.Path(path).stem + ".png"))
    return failures


LAYOUT = """(() => {
  const found = [];
  const drawn = r => r.width > 0 && r.height > 0;
  const meet = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
                         Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  for (const svg of document.querySelectorAll('svg')) {
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].map(t => ({text: t.textContent.trim(), box: t.getBoundingClientRect()}))
        .filter(t => t.text && drawn(t.box));
    for (const t of texts)
      if (t.box.left < box.left - 1 || t.box.right > box.right + 1 || t.box.top < box.top - 1 || t.box.bottom > box.bottom + 1)
        found.push(`text outside its picture: "${t.text}"`);
    for (let i = 0; i < texts.length; ++i)
      for (let j = i + 1; j < texts.length; ++j)
        if (meet(texts[i].box, texts[j].box)) found.push(`overlapping text: "${texts[i].text}" and "${texts[j].text}"`);
    // The timing plot's panels hold the data alone: no label sits on the blocks.
    if (svg.querySelector('title[id="plot-title"]'))
      for (const frame of svg.querySelectorAll('rect[fill="none"]'))
        for (const t of texts)
          if (meet(frame.getBoundingClientRect(), t.box)) found.push(`text on the plotted blocks: "${t.text}"`);
    for (const t of texts)
      if (/^[-\u2212]\d/.test(t.text) && t.text.includes('\u00d7')) found.push(`a negative ratio on an axis: "${t.text}"`);
  }
  for (const el of document.querySelectorAll('section, .cards, .card, .verdict-sentence'))
    if (el.scrollWidth > el.clientWidth + 1)
      found.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} overflows sideways by ${el.scrollWidth - el.clientWidth}px`);
  if (document.documentElement.scrollWidth > window.innerWidth + 1) found.push('the page scrolls sideways');
  return found;
})()"""


def layout_problems(browser):
    """What a reader should never see laid out: text over text, text outside its picture or on
    the timing plot's blocks, a negative ratio on an axis, a table or card wider than its box."""
    return browser.evaluate(LAYOUT)


def outlier_problems(browser, path):
    """The worst cases of issue 44: the outlier is counted on the top edge, not flattening the rest."""
    stem = pathlib.Path(path).stem
    if not stem.startswith("outlier_comparison"):
        return []
    facts = browser.evaluate("""({
        marks: document.querySelectorAll('svg path.clipped').length,
        note: [...document.querySelectorAll('svg text.clipped-note')].map(t => t.textContent),
        cards: [...document.querySelectorAll('.card')].map(c => c.innerText).join(' | '),
    })""")
    failures = []
    if facts["marks"] != 1 or not any("1 block above the top (slowest 133" in n for n in facts["note"]):
        failures.append(f"the 133 ms outlier is not marked and counted: {facts}")
    if "Mann-Whitney" in facts["cards"]:
        failures.append(f"a bare p-value among the cards: {facts['cards']}")
    return failures


def check_notebook_page(browser, path, screenshots):
    """A notebook view (report/notebook_renderer.h) inside a page of its own."""
    url = pathlib.Path(path).resolve().as_uri()
    failures = problems_on_page(browser, url) + layout_problems(browser) + outlier_problems(browser, path)
    facts = browser.evaluate("""({
        roots: document.querySelectorAll('body > div.torchscan-nb').length,
        plots: document.querySelectorAll('svg title[id="plot-title"]').length,
        details: document.querySelectorAll('details').length,
        body_font: getComputedStyle(document.body).fontFamily,
        size: document.body.innerHTML.length,
    })""")
    if facts["roots"] != 1 or facts["plots"] != 1 or facts["details"] != 0:
        failures.append(f"expected one view with one timing plot and no details: {facts}")
    if facts["body_font"] != "serif":
        failures.append(f"the view restyled the page around it (body font {facts['body_font']})")
    if facts["size"] > 150 * 1024:
        failures.append(f"the view is {facts['size']} characters, more than 150 KB")
    screenshot(browser, os.path.join(screenshots, pathlib.Path(path).stem + ".png"))
    return failures


def check_page(browser, path, screenshots):
    if "history" in pathlib.Path(path).stem:
        return check_history_page(browser, path, screenshots)
    if pathlib.Path(path).stem.endswith("_notebook"):
        return check_notebook_page(browser, path, screenshots)
    url = pathlib.Path(path).resolve().as_uri()
    failures = problems_on_page(browser, url)
    facts = browser.evaluate("""({
        scripts: document.querySelectorAll('script').length,
        title: document.title,
        text: document.body.innerText.length,
        details: document.querySelectorAll('details').length,
        open: document.querySelectorAll('details[open]').length,
        svgs: document.querySelectorAll('svg').length,
        plots: document.querySelectorAll('svg title[id="plot-title"]').length,
        paired: document.querySelectorAll('svg title[id="paired-title"]').length,
        timeline_tables: document.querySelectorAll('#timeline table').length,
        timelines: [...document.querySelectorAll('#timeline svg')].map(svg => {
            const box = svg.getBoundingClientRect();
            return {bars: svg.querySelectorAll('rect').length, width: box.width, height: box.height,
                    drawn: [...svg.querySelectorAll('rect')].filter(r => r.getBoundingClientRect().width > 0).length};
        })})""")
    failures += hostile_text_problems(browser, path) + layout_problems(browser) + outlier_problems(browser, path)
    if facts["scripts"]:
        failures.append(f"{facts['scripts']} <script> elements")
    if not facts["title"] or facts["text"] < 200:
        failures.append("empty title or body")
    if facts["details"] == 0 or facts["open"] != 0:
        failures.append(f"expected closed <details>, found {facts['details']} with {facts['open']} open")
    if facts["plots"] != 1 or facts["svgs"] != 1 + facts["paired"] + len(facts["timelines"]):
        failures.append(f"expected one timing plot, the paired rounds and the timeline charts, found {facts['svgs']} SVGs")
    if len(facts["timelines"]) != facts["timeline_tables"]:
        failures.append(f"expected a bar chart per timeline table, found {facts['timelines']}")
    if pathlib.Path(path).stem == "passed_comparison" and not facts["timelines"]:
        failures.append("the passed comparison's phase timeline has no bar chart")
    if pathlib.Path(path).stem == "daemon_job" and len(facts["timelines"]) != 2:
        failures.append(f"expected the worker's and the job's timeline charts, found {facts['timelines']}")
    for chart in facts["timelines"]:
        if chart["bars"] == 0 or chart["drawn"] != chart["bars"] or chart["width"] < 200 or chart["height"] < 20:
            failures.append(f"a phase timeline chart is not drawn: {chart}")
    heights = browser.evaluate("""(() => {
        const d = document.querySelector('details[id^="raw-blocks-"]');
        if (!d) return null;
        const table = d.querySelector('table');
        const closed = d.getBoundingClientRect().height, hidden = !table.checkVisibility();
        d.open = true;
        return {closed, hidden, opened: d.getBoundingClientRect().height, shown: table.checkVisibility(),
                rows: table.rows.length};
    })()""")
    if not heights or not heights["hidden"] or not heights["shown"] or heights["opened"] <= heights["closed"] + 20:
        failures.append(f"opening the raw blocks did not show them: {heights}")
    screenshot(browser, os.path.join(screenshots, pathlib.Path(path).stem + ".png"))
    browser.evaluate("document.querySelector('details[id^=\"raw-blocks-\"]').scrollIntoView()")
    screenshot(browser, os.path.join(screenshots, pathlib.Path(path).stem + ".details-open.png"))
    return failures


def screenshot(browser, target):
    """The 1280x2000 viewport as it is scrolled now."""
    shot = browser.call("Page.captureScreenshot", {"format": "png"})
    with open(target, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


LAYOUT_CONTROL_PAGE = """<!DOCTYPE html><html><head><title>layout control</title>
<style>section{width:300px;overflow-x:auto}</style></head><body>
<svg viewBox="0 0 200 60" width="200" height="60"><text x="10" y="30" font-size="14">first label</text>
<text x="30" y="32" font-size="14">second label</text><text x="10" y="55" font-size="11">-2.39\u00d7</text></svg>
<section><table><tr><td>sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</td></tr></table></section>
</body></html>"""

CONTROL_PAGE = """<!DOCTYPE html><html><head><title>control</title></head><body>
<img src="http://192.0.2.1/pixel.png"><script>throw new Error("control")</script></body></html>"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--xml")
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()
    os.makedirs(args.screenshots, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="torchscan-chromium-")
    results = []
    browser = Browser(args.chromium, profile)
    try:
        print(f"chromium: {browser.call('Browser.getVersion')['product']}, "
              f"network namespace: {'new, empty' if browser.isolated else 'shared (unshare unavailable)'}")
        control = os.path.join(profile, "control.html")
        pathlib.Path(control).write_text(CONTROL_PAGE)
        found = problems_on_page(browser, pathlib.Path(control).as_uri())
        caught = any(f.startswith("request to http://192.0.2.1") for f in found) and any(
            "exception" in f for f in found)
        results.append(("ControlPageProblemsAreDetected", [] if caught else [f"control page not caught: {found}"]))
        layout_control = os.path.join(profile, "layout_control.html")
        pathlib.Path(layout_control).write_text(LAYOUT_CONTROL_PAGE)
        problems_on_page(browser, pathlib.Path(layout_control).as_uri())
        found = layout_problems(browser)
        caught = [any(f.startswith(kind) for f in found)
                  for kind in ("overlapping text", "a negative ratio", "section overflows sideways")]
        results.append(("LayoutControlProblemsAreDetected", [] if all(caught) else [f"layout control not caught: {found}"]))
        for page in args.pages:
            name = "".join(part.capitalize() for part in pathlib.Path(page).stem.split("_"))
            results.append((f"{name}LoadsOfflineWithoutErrors", check_page(browser, page, args.screenshots)))
    finally:
        browser.close()
        shutil.copy(os.path.join(profile, "chromium.log"), os.path.join(args.screenshots, "chromium.log"))
        shutil.rmtree(profile, ignore_errors=True)

    failed = [(name, f) for name, f in results if f]
    for name, failures in results:
        print(f"[{'FAILED' if failures else '    OK'}] {name}")
        for failure in failures:
            print(f"         {failure}")
    print(f"browser test: {len(results) - len(failed)} passed, {len(failed)} failed; "
          f"screenshots in {args.screenshots}")
    if args.xml:
        write_junit(args.xml, results)
    return 1 if failed else 0


def write_junit(path, results):
    failures = sum(1 for _, f in results if f)
    cases = []
    for name, found in results:
        body = "".join(f"<failure message={xml.sax.saxutils.quoteattr(f)}/>" for f in found)
        cases.append(f'<testcase name="{name}" classname="BrowserTest">{body}</testcase>')
    with open(path, "w") as f:
        f.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="{len(results)}" failures="{failures}" '
                f'errors="0" name="browser_test">\n<testsuite name="BrowserTest" tests="{len(results)}" '
                f'failures="{failures}" errors="0">\n' + "\n".join(cases) + "\n</testsuite>\n</testsuites>\n")


if __name__ == "__main__":
    sys.exit(main())
