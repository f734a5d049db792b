"""The app audited by axe-core (WCAG 2.0/2.1 A and AA rules) in headless Chromium (issue #30).

``python -m benchmarks.accessibility [--checkout DIR] [--out FILE] [--label NAME]
[--states NAME ...]`` starts the app (``--checkout DIR``: that source tree's code, ``DIR``
first on the Python path, as :mod:`benchmarks.class_of_100` does; e.g. ``git worktree add
/tmp/m/base REV``), brings a fresh tab to each of :data:`STATES` (every page as opened from the
navigation, a lesson stage before and after its reveal, the step page after 5 Steps, Compare
after a run, Paper experiments with results) and runs axe on it with the tags of :data:`TAGS`.

Streamlit scrolls inside its own boxes (the main area, the sidebar) and axe rates the colour
contrast of on-screen text only, so before each audit the window is made as tall as the
content: 1280 px wide, as high as the larger scroll height of the main area and of the
sidebar (re-measured until nothing scrolls any more).  Every wait is on the page's state (the
script idle, a text shown), never a sleep.

Each node of a violation is **project content** unless an entry of :data:`KNOWN` (rule, a
pattern of its selector or html, and why) says it is the inside of a Streamlit widget that
the project can neither style nor label; anything the project draws (markdown, captions,
charts, its own component, the colours its theme sets) is project content.

``--out FILE`` writes the report's section ``## <label>`` into FILE (a section of that label
already there is replaced, the others are kept: "before" and "after" side by side).
:mod:`tests.app.test_browser_accessibility` runs the same states and fails on any serious or
critical node of project content.
"""
from __future__ import annotations

import argparse
import datetime
import os
import re
import shlex
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

from .browser import CHROMIUM, FLAGS, IDLE

__all__ = ["IMPACTS", "KNOWN", "STATES", "TAGS", "Known", "Node", "State", "Violation",
           "audit", "blocking", "fit_viewport", "main", "markdown", "run", "visit"]

REPO = Path(__file__).resolve().parents[1]
#: axe-core's rule tags of WCAG 2.0 and 2.1, levels A and AA
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
IMPACTS = ("critical", "serious", "moderate", "minor")
WIDTH = 1280
WAIT = 180_000   # ms: any one wait on a busy machine (each ends as soon as its state holds)


@dataclass(frozen=True)
class Known:
    """Nodes of rule ``rule`` whose selector or html matches ``pattern`` (a regular
    expression) are Streamlit's own widget, for ``reason``."""

    rule: str
    pattern: str
    reason: str

    def matches(self, rule, target, html):
        return rule == self.rule and bool(re.search(self.pattern, f"{target}\n{html}"))


#: Streamlit's own widget internals the project can neither style nor label, as
#: ``Known(rule, pattern, reason)``.  Kept short: a node matched here is still listed in the
#: report, only not counted against the project.  Empty: at 1746f96 (before issue #30) every
#: violating node is something the project can fix.  Not here on purpose: the selected pill's
#: text (4.47:1) and the captions' grey (3.88:1), both colours of Streamlit's widgets that the
#: project's theme sets (``primaryColor``, ``textColor``); the project's own chart component.
KNOWN = [
]


@dataclass
class Node:
    """One element a rule failed on."""

    target: str
    html: str
    impact: str
    detail: str
    text: str = ""             # the element's text (axe cuts a long html to its opening tag)
    known: str | None = None   # the reason it is Streamlit's own widget, else project content

    @property
    def origin(self):
        return "Streamlit's own widget" if self.known else "project content"


@dataclass
class Violation:
    rule: str
    impact: str
    tags: list
    help: str
    url: str
    nodes: list


@dataclass
class State:
    """A state of the app, its audit and how long reaching and auditing it took."""

    name: str
    violations: list = field(default_factory=list)
    # axe's "needs review": rule -> {why: (nodes, an example's selector and html)}
    incomplete: dict = field(default_factory=dict)
    height: int = 0           # the viewport's height the audit ran at
    seconds: float = 0.0
    error: str = ""

    def nodes(self):
        return [(v, n) for v in self.violations for n in v.nodes]

    def review(self):
        """The number of nodes axe could not rate ("needs review")."""
        return sum(c for r in self.incomplete.values() for c, _ in r.values())

    def counts(self):
        """``{impact: (project nodes, Streamlit nodes)}``."""
        out = {i: [0, 0] for i in IMPACTS}
        for _, n in self.nodes():
            out.setdefault(n.impact, [0, 0])[bool(n.known)] += 1
        return out


def blocking(state):
    """The serious or critical nodes of project content: ``[(violation, node)]``."""
    return [(v, n) for v, n in state.nodes()
            if n.impact in ("critical", "serious") and not n.known]


# ---- driving the app -------------------------------------------------------------------------

def settle(page):
    """Wait until the app is drawn and its script is idle."""
    page.wait_for_selector("[data-testid='stAppViewContainer']", timeout=WAIT)
    page.wait_for_function(IDLE, timeout=WAIT)


def wait_text(page, text):
    """Wait until the main area (not the navigation) shows ``text``, then the script idle."""
    page.locator("[data-testid='stMain']").get_by_text(text, exact=False).first.wait_for(
        timeout=WAIT)
    settle(page)


def keyed(page, key):
    """The element drawn with Streamlit key ``key``."""
    return page.locator(f".st-key-{key}").first


def open_page(page, url, path, ready):
    page.goto(url + path)
    settle(page)
    wait_text(page, ready)


def _lesson_stage(page, url):
    """Lesson 2, stage 1 (a choice, then Steps, then a chart with the verdict) as opened."""
    open_page(page, url, "/lessons", "Seven guided lessons")
    keyed(page, "lesson_start_2").locator("button").click()
    wait_text(page, "Stage 1 of")
    keyed(page, "lesson_q_2_1").locator("[role=radiogroup] label").first.wait_for(timeout=WAIT)


def _lesson_revealed(page, url):
    """Lesson 2, stage 1: the first answer locked, its Steps taken, the verdict shown, the
    "Why" folded open."""
    _lesson_stage(page, url)
    keyed(page, "lesson_q_2_1").locator("[role=radiogroup] label").first.click()
    keyed(page, "lesson_lock_2_1").locator("button").first.click()
    # the action's buttons are drawn once the guess is locked ("Step", and "Step to 2 voters"
    # beside it when more than one step is left): one click takes the stage's steps
    keyed(page, "lesson_step_2_1").locator("button").first.wait_for(timeout=WAIT)
    settle(page)
    steps = keyed(page, "lesson_steps_2_1")
    (steps if steps.count() else keyed(page, "lesson_step_2_1")).locator("button").first.click()
    page.locator("[data-testid='stAlert']").filter(
        has_text=re.compile(r"Right\.|Not this time\.")).first.wait_for(timeout=WAIT)
    settle(page)
    page.get_by_text("Why, with the numbers").first.click()
    wait_text(page, "Source:")


def _steps(page, url):
    """The step page (two moons from the home page's button) after 5 Steps."""
    open_page(page, url, "/", "learn the C-bound")
    page.get_by_role("button", name="Start on the two-moons toy set").click()
    wait_text(page, "Press Step")
    for i in range(1, 6):
        keyed(page, "step_once").locator("button").click()
        wait_text(page, f"Iteration {i} of {i}")
    page.locator(".js-plotly-plot").nth(1).wait_for(timeout=WAIT)   # the plane and the bounds


def _compared(page, url):
    open_page(page, url, "/compare_algorithms", "Compare algorithms")
    keyed(page, "cmp_run").locator("button").first.click()
    wait_text(page, "At the last iteration")
    page.locator(".js-plotly-plot").nth(6).wait_for(timeout=WAIT)   # six curves, the bounds


def _experiments(page, url):
    """Paper experiments, Fig. 5 (quick) run and its results shown."""
    open_page(page, url, "/paper_experiments", "Paper experiments")
    page.get_by_role("combobox", name="Experiment").click()
    page.get_by_role("option", name="Fig. 5", exact=False).click()
    wait_text(page, "beside MinCq(CB-Boost)'s: the lowest")   # Fig. 5's own caption: its run
    run_button = keyed(page, "exp_run").locator("button").first
    if run_button.is_enabled():   # disabled: the data folder holds the whole run already
        run_button.click()
    wait_text(page, "Tables")
    page.locator(".js-plotly-plot").first.wait_for(timeout=WAIT)


def _page(path, ready):
    return lambda page, url: open_page(page, url, path, ready)


#: name -> how a fresh tab reaches the state, from the server's URL
STATES = {
    "Home": _page("/", "learn the C-bound"),
    "Lessons": _page("/lessons", "Seven guided lessons"),
    "Step through an algorithm": _page("/step_through_cbboost", "Press Step"),
    "Gradient vs exhaustive": _page("/gradient_vs_exhaustive", "Gradient vs exhaustive"),
    "Compare algorithms": _page("/compare_algorithms", "Compare algorithms"),
    "C-bound explorer": _page("/cbound_explorer", "C-bound explorer"),
    "Class dashboard": _page("/class", "This is a teacher's page"),
    "Paper experiments": _page("/paper_experiments", "Paper experiments"),
    "Lesson 2 stage 1, before the reveal": _lesson_stage,
    "Lesson 2 stage 1, after the reveal": _lesson_revealed,
    "Step page after 5 Steps": _steps,
    "Compare after a run": _compared,
    "Paper experiments with results (Fig. 5)": _experiments,
}


# ---- the audit ---------------------------------------------------------------------------------

# the heights of what scrolls inside Streamlit's boxes: the main area and the sidebar's content
HEIGHTS = """() => {
  const boxes = ['[data-testid="stMain"]', '[data-testid="stSidebarContent"]']
    .map(s => document.querySelector(s)).filter(e => e);
  return {need: Math.max(document.documentElement.scrollHeight,
                         ...boxes.map(e => e.scrollHeight)),
          fits: boxes.every(e => e.scrollHeight <= e.clientHeight + 1)};
}"""
# every Plotly chart (Streamlit's and the project's live chart) has drawn its SVG
CHARTS_DRAWN = """() => [...document.querySelectorAll(
    '[data-testid="stPlotlyChart"], .cbviz-live-chart')].every(e => e.querySelector('.main-svg'))"""
# the app's stylesheet (cbviz/ui/assets/css/app.css, added by every run) is in the page
STYLED = ("() => [...document.querySelectorAll('style')]"
          ".some(s => s.textContent.includes('cbviz: what Streamlit'))")
# the text of the element at a selector of the top document
TEXT_AT = """s => { try { const e = document.querySelector(s);
  return e ? (e.innerText || e.textContent || '').trim().slice(0, 200) : ''; }
  catch (err) { return ''; } }"""
# two animation frames: the layout after a resize is drawn (Plotly relayouts on 'resize')
FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))"


def fit_viewport(page, width=WIDTH, rounds=6):
    """Make the viewport ``width`` wide and as tall as the content, so that nothing scrolls
    inside Streamlit's boxes (re-measured after each resize); returns the height."""
    height = page.viewport_size["height"]
    for _ in range(rounds):
        h = page.evaluate(HEIGHTS)
        if h["fits"] and h["need"] <= height:
            return height
        height = max(height, int(h["need"]))
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function(f"() => window.innerHeight === {height}", timeout=WAIT)
        page.evaluate(FRAMES)
        settle(page)
    raise RuntimeError(f"the content still scrolls at a viewport {width}x{height} "
                       f"after {rounds} resizes: {page.evaluate(HEIGHTS)}")


def _target(node):
    """axe's target (a list of selectors, one per frame, a frame's own a list) as one string."""
    return " >>> ".join(" > ".join(t) if isinstance(t, list) else t for t in node["target"])


def _detail(rule, node):
    checks = node.get("any", []) + node.get("all", []) + node.get("none", [])
    if rule == "color-contrast" and checks and checks[0].get("data"):
        d = checks[0]["data"]
        return (f"{d.get('contrastRatio')}:1 ({d.get('fgColor')} on {d.get('bgColor')}, "
                f"{d.get('fontSize')} {d.get('fontWeight')}; "
                f"needs {d.get('expectedContrastRatio')})")
    return "; ".join(c["message"] for c in checks if c.get("message"))[:300]


def audit(page, known=KNOWN):
    """axe's WCAG A/AA violations of the page as it is now, window fitted to the content:
    ``(violations, needs-review node count, height)``."""
    from axe_playwright_python.sync_playwright import Axe
    page.wait_for_function(CHARTS_DRAWN, timeout=WAIT)
    page.wait_for_function(STYLED, timeout=WAIT)   # the app's stylesheet applies
    height = fit_viewport(page)
    axe = Axe()
    for frame in page.frames[1:]:   # axe reads inside frames only where it is loaded
        try:
            frame.evaluate(axe.axe_script)
        except Exception:   # a frame gone meanwhile
            pass
    options = {"runOnly": {"type": "tag", "values": TAGS},
               "resultTypes": ["violations", "incomplete"]}
    response = axe.run(page, options=options).response
    violations = []
    for v in response["violations"]:
        nodes = []
        for n in v["nodes"]:
            target, html = _target(n), n.get("html", "")
            why = next((k.reason for k in known if k.matches(v["id"], target, html)), None)
            text = page.evaluate(TEXT_AT, target) if len(n["target"]) == 1 else ""
            nodes.append(Node(target, html, n.get("impact") or v["impact"],
                              _detail(v["id"], n), text, why))
        violations.append(Violation(v["id"], v["impact"], [t for t in v["tags"] if
                                    t.startswith("wcag")], v["help"], v["helpUrl"], nodes))
    incomplete = {}   # rule -> {why: nodes}
    for v in response["incomplete"]:
        for n in v["nodes"]:
            checks = n.get("any", []) + n.get("all", []) + n.get("none", [])
            why = checks[0]["message"] if checks else v["help"]
            why = re.sub(r"react-aria[\w:-]+", "react-aria…", why)   # an id per element
            reasons = incomplete.setdefault(v["id"], {})
            count, example = reasons.get(why, (0, ""))
            reasons[why] = (count + 1, example or f"{_target(n)} {n.get('html', '')[:120]}")
    return violations, incomplete, height


def visit(browser, url, name, known=KNOWN):
    """A fresh tab brought to state ``name`` of :data:`STATES` and audited: a :class:`State`."""
    state = State(name)
    page = browser.new_page(viewport={"width": WIDTH, "height": 800})
    page.set_default_timeout(WAIT)
    t0 = time.perf_counter()
    try:
        STATES[name](page, url)
        if page.locator("[data-testid='stException']").count():
            state.error = "the page shows an exception: " + page.locator(
                "[data-testid='stException']").first.inner_text()[:300]
        state.violations, state.incomplete, state.height = audit(page, known)
    finally:
        state.seconds = time.perf_counter() - t0
        page.close()
    return state


def run(url, names=None, log=print):
    """Audit states ``names`` (default: all) of the app at ``url``: a list of :class:`State`."""
    from playwright.sync_api import sync_playwright
    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            for name in names or STATES:
                log(f"{name} ...")
                try:
                    state = visit(browser, url, name)
                except Exception as exc:   # reported, the other states still run
                    state = State(name, error=f"{type(exc).__name__}: {str(exc)[:400]}")
                log(f"  {state.seconds:.1f} s, {len(state.nodes())} nodes"
                    + (f", ERROR {state.error}" if state.error else ""))
                out.append(state)
        finally:
            browser.close()
    return out


# ---- the report --------------------------------------------------------------------------------

def _cell(text, limit=None):
    text = " ".join(str(text).split())
    if limit and len(text) > limit:
        text = text[:limit] + "…"
    return text.replace("|", "\\|")


def markdown(states, label, meta):
    """The report's section ``## label``: the run's facts, counts per state, the findings."""
    lines = [f"## {label}", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items()]
    lines += ["", "### Nodes per state (project content / Streamlit's own widget)", "",
              "| State | critical | serious | moderate | minor | needs review | height px | s |",
              "|---|---|---|---|---|---|---|---|"]
    total = {i: [0, 0] for i in IMPACTS}
    for s in states:
        c = s.counts()
        for i in IMPACTS:
            total[i][0] += c[i][0]
            total[i][1] += c[i][1]
        name = s.name + (f" (**error**: {_cell(s.error, 200)})" if s.error else "")
        lines.append(f"| {name} | " + " | ".join(f"{c[i][0]} / {c[i][1]}" for i in IMPACTS)
                     + f" | {s.review()} | {s.height} | {s.seconds:.0f} |")
    lines.append("| **all states** | " + " | ".join(f"{total[i][0]} / {total[i][1]}"
                                                  for i in IMPACTS) + " | | | |")
    # distinct findings: (rule, origin, target, html) with the states they occur in
    found = {}
    for s in states:
        for v, n in s.nodes():
            key = (v.rule, n.target, n.html, n.text)
            entry = found.setdefault(key, {"v": v, "n": n, "states": []})
            entry["states"].append(s.name)
    order = {i: k for k, i in enumerate(IMPACTS)}
    rows = sorted(found.values(), key=lambda e: (bool(e["n"].known), order.get(e["n"].impact, 9),
                                                 e["v"].rule, e["n"].target))
    lines += ["", f"### Distinct findings ({len(rows)})", ""]
    rules = {}
    for e in rows:
        rules.setdefault(e["v"].rule, e["v"])
    for rule, v in sorted(rules.items()):
        lines.append(f"- `{rule}` ({', '.join(v.tags)}): {v.help} — {v.url}")
    if rows:
        lines += ["", "| # | rule | impact | origin | selector | html | text | detail | states |",
                  "|---|---|---|---|---|---|---|---|---|"]
    else:
        lines.append("None.")
    for k, e in enumerate(rows, start=1):
        v, n = e["v"], e["n"]
        where = ("all states" if len(e["states"]) == len(states) > 1
                 else "; ".join(e["states"]))
        origin = n.origin + (f" ({_cell(n.known)})" if n.known else "")
        lines.append(f"| {k} | `{v.rule}` | {n.impact} | {origin} | `{_cell(n.target)}` | "
                     f"`{_cell(n.html, 240)}` | {_cell(n.text, 120)} | {_cell(n.detail)} | "
                     f"{where} |")
    review = {}
    for s in states:
        for rule, reasons in s.incomplete.items():
            for why, (count, example) in reasons.items():
                before = review.get((rule, why), (0, example))
                review[(rule, why)] = (before[0] + count, before[1])
    if review:
        lines += ["", "### Needs review (axe's *incomplete*: not rated, not failed), all states",
                  "", "| rule | why axe could not rate it | nodes | e.g. |", "|---|---|---|---|"]
        lines += [f"| `{rule}` | {_cell(why, 200)} | {count} | `{_cell(example, 260)}` |"
                  for (rule, why), (count, example)
                  in sorted(review.items(), key=lambda e: -e[1][0])]
    if KNOWN:
        lines += ["", "### Known Streamlit widget nodes (allowed by the test)", ""]
        lines += [f"- `{k.rule}`, `{_cell(k.pattern)}`: {k.reason}" for k in KNOWN]
    return "\n".join(lines) + "\n"


HEADER = """# Accessibility audit: axe-core, WCAG 2.0/2.1 A and AA (issue #30)

Made by `python -m benchmarks.accessibility` (see its docstring): each state in a fresh tab of
headless Chromium, the window 1280 px wide and as tall as the content, axe-core's rules tagged
`wcag2a`, `wcag2aa`, `wcag21a`, `wcag21aa`.  Counts are nodes (elements), as "project content /
Streamlit's own widget"; "needs review" is axe's *incomplete* (e.g. text over an image, not
rated).  `tests/app/test_browser_accessibility.py` fails on any serious or critical node of
project content.
"""


def write_section(path, section, label):
    """Put ``section`` (which starts with ``## label``) into the report at ``path``, replacing
    a section of the same label, keeping the others."""
    path = Path(path)
    text = path.read_text() if path.exists() else HEADER
    parts = re.split(r"(?m)^(?=## )", text)
    head, sections = parts[0], parts[1:]
    sections = [s for s in sections if s.splitlines()[0].strip() != f"## {label}"]
    sections.append(section)
    path.write_text(head.rstrip() + "\n\n" + "\n".join(s.rstrip() + "\n" for s in sections))


def _commit_of(tree):
    from .class_of_100 import commit_of
    return commit_of(tree)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.accessibility",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkout", metavar="DIR", default=str(REPO),
                    help="the source tree to serve (default: this checkout)")
    ap.add_argument("--out", metavar="FILE", help="write the report's section into FILE")
    ap.add_argument("--label", help="the section's name (default: 'before' for another "
                                    "checkout, 'after' for this one)")
    ap.add_argument("--states", nargs="+", choices=list(STATES), metavar="STATE",
                    help="only these states (default: all)")
    args = ap.parse_args(argv)
    tree = Path(args.checkout).resolve()
    label = args.label or ("after" if tree == REPO else "before")
    command = "python -m benchmarks.accessibility " + shlex.join(
        sys.argv[1:] if argv is None else argv)
    from ._class_of_100_serve import served   # the tree's own serving code, PYTHONPATH=tree
    started = datetime.datetime.now().astimezone()
    t0 = time.perf_counter()
    log = lambda text: print(f"  [{time.strftime('%H:%M:%S')}] {text}", flush=True)  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="cbviz-a11y-") as data:
        os.environ["CBVIZ_DATA_DIR"] = data   # the experiments' results: not the user's
        with served(tree) as server:
            log(f"serving {tree} at {server.url}")
            states = run(server.url, args.states, log)
    meta = {"date": started.strftime("%Y-%m-%d %H:%M %Z"),
            "served tree": f"`{tree}`, commit {_commit_of(tree)}",
            "command": f"`{command.strip()}`",
            "versions": f"axe-core {_axe_version()}, axe-playwright-python "
                        f"{version('axe-playwright-python')}, Playwright {version('playwright')}, "
                        f"Streamlit {version('streamlit')}, Chromium at `{CHROMIUM}`",
            "machine": f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end",
            "time": f"{time.perf_counter() - t0:.0f} s for {len(states)} states (server start "
                    "included)"}
    text = markdown(states, f"{label}", meta)
    print(text, flush=True)
    if args.out:
        write_section(args.out, text, label)
    return states


def _axe_version():
    from axe_playwright_python.base import AXE_SCRIPT
    m = re.search(r"axe v([\d.]+)", AXE_SCRIPT[:200])
    return m.group(1) if m else "?"


if __name__ == "__main__":
    main()
