"""One student of a class: a browser session that opens the step page from a link, takes Steps,
visits another page and comes back, each Step checked against a lone run; and the health probe
that watches the server meanwhile.  Shared by :mod:`benchmarks.load` (one server) and
:mod:`benchmarks.load_fleet` (workers behind nginx), which import it and not each other.
"""
from __future__ import annotations

import multiprocessing
import re
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

from streamlit.proto.BackMsg_pb2 import BackMsg

from .browser import IDLE, STATES_JS
from .processes import pin

SAME = "source=toy&toy=moons"
OWN = ("source=real&real=ionosphere", "source=toy&toy=spirals", "source=real&real=breast_cancer",
       "source=toy&toy=circles&n_samples=400", "source=real&real=heart",
       "source=toy&toy=xor&toy_noise=0.1", "source=real&real=sonar",
       "source=toy&toy=checkerboard", "source=real&real=pima", "source=toy&toy=blobs")
STATUS = re.compile(r"Iteration (\d+) of (\d+): C-bound ([0-9.]+), train error ([0-9.]+)")
STATUS_JS = ("() => { const m = document.body.innerText.match(/Iteration \\d+ of \\d+: "
             "C-bound [0-9.]+, train error [0-9.]+/); return m ? m[0] : ''; }")
SHOWN_JS = ("n => { const m = document.body.innerText.match(/Iteration (\\d+) of (\\d+)/);"
            " return m && Number(m[1]) === n && Number(m[2]) === n; }")
TIMEOUT = 180_000  # ms: 20 sessions on a 2-core machine


def plan(n_sessions):
    """The link of each session: every other one on the same settings, the rest their own."""
    own = iter(OWN * (1 + n_sessions // len(OWN)))
    return [SAME if i % 2 == 0 else next(own) for i in range(n_sessions)]


def expected(query, steps):
    """What a session on ``query`` must show: its caption and the status line of each Step,
    from a lone CB-Boost run with the page's default hyper-parameters."""
    from cbviz.algorithms.registry import ALGORITHMS, make_algorithm
    from cbviz.problem import Settings, build_problem

    settings, ignored = Settings.from_link(dict(urllib.parse.parse_qsl(query)), Settings())
    assert not ignored, ignored
    problem = build_problem(settings)
    params = {p.name: p.default for p in ALGORITHMS["cbboost"].params}
    run = make_algorithm("cbboost", 100, settings.delta, **params).start(
        problem.H_train, problem.split.y_train, problem.H_test, problem.split.y_test)
    lines = []
    while len(lines) < steps and run.step() is not None:
        t, rec = len(run.history), run.history[-1]
        lines.append(f"Iteration {t} of {t}: C-bound {rec.c_bound:.4f}, "
                     f"train error {rec.train_error:.4f}")
    caption = (f"{problem.split.X_train.shape[0]} train / {problem.split.X_test.shape[0]} test "
               f"examples · {problem.n_voters} voters")
    return problem.dataset.description, caption, lines


@dataclass
class Session:
    """What one session saw."""

    query: str
    latencies: list = field(default_factory=list)
    problems: list = field(default_factory=list)


async def _idle(page):
    await page.wait_for_function(IDLE, timeout=TIMEOUT)


async def _caption_ok(page, session, description, sizes, when):
    text = await page.inner_text("[data-testid='stMain']")
    if description not in text or sizes not in text:
        session.problems.append(f"{when}: the page no longer shows its data set ({sizes})")


async def drive(browser, url, session, want, steps, keep=None):
    """One student: open the link, Step, visit another page halfway, come back, Step on.

    ``keep``: a list to which ``(context, page, last status line)`` is appended, the session
    left open (the kill drill of :mod:`benchmarks.load_fleet` goes on with it)."""
    description, sizes, lines = want
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    kept, doing, page, sent = False, "opening the link", None, []
    try:
        page = await context.new_page()
        page.on("websocket", lambda ws: ws.on("framesent", lambda frame: _note(sent, frame)))
        await page.goto(f"{url}/step_through_cbboost?{session.query}", timeout=TIMEOUT)
        await page.wait_for_selector("[data-testid='stAppViewContainer']", timeout=TIMEOUT)
        await _idle(page)
        await _caption_ok(page, session, description, sizes, "on opening")
        for k in range(1, min(steps, len(lines)) + 1):
            doing = f"Step {k}"
            t0 = time.perf_counter()
            await page.locator(".st-key-step_once button").click(timeout=TIMEOUT)
            await page.wait_for_function(SHOWN_JS, arg=k, timeout=TIMEOUT)
            await _idle(page)
            session.latencies.append((time.perf_counter() - t0) * 1e3)
            shown = await page.evaluate(STATUS_JS)
            if shown != lines[k - 1]:
                session.problems.append(f"step {k}: shows {shown!r}, a lone run {lines[k - 1]!r}")
            if k == steps // 2:  # another page and back: the data set and the run must stay
                doing = f"going to another page after Step {k}"
                await page.get_by_role("link", name="Gradient vs exhaustive").click(
                    timeout=TIMEOUT)
                await page.get_by_text("Every candidate at one iteration").wait_for(
                    timeout=TIMEOUT)
                await _idle(page)
                doing = f"coming back after Step {k}"
                await page.get_by_role("link", name="Step through an algorithm").click(
                    timeout=TIMEOUT)
                await page.wait_for_function(SHOWN_JS, arg=k, timeout=TIMEOUT)
                await _idle(page)
                await _caption_ok(page, session, description, sizes, f"back after step {k}")
        await _caption_ok(page, session, description, sizes, "at the end")
        if keep is not None and not session.problems:
            keep.append((context, page, await page.evaluate(STATUS_JS)))
            kept = True
    except Exception as exc:  # a session that fails is counted as such, the others go on
        session.problems.append(f"{doing}: {type(exc).__name__}: "
                                f"{str(exc).splitlines()[0][:160]}; {await _shown(page)}; "
                                f"the last reruns it asked for: {sent[-8:]}")
    finally:
        if not kept:
            await context.close()


def _note(sent, frame):
    """Note a rerun the page asks the server for (its time, page, fragment and the widgets
    that triggered it), for a failure's message."""
    if not isinstance(frame, bytes):
        return
    msg = BackMsg()
    msg.ParseFromString(frame)
    if msg.WhichOneof("type") == "rerun_script":
        r = msg.rerun_script
        triggers = [w.id.rpartition("-")[2] for w in r.widget_states.widgets
                    if "trigger" in (w.WhichOneof("value") or "")]
        sent.append(f"{time.perf_counter():.1f} page {r.page_name or r.page_script_hash[:6]!r} "
                    f"fragment {r.fragment_id[:6]!r} triggers {triggers}")


async def _shown(page):
    """The page's address, connection and script states, status line and the start of its
    main area's text, for a failure's message (read with bounded waits: the page may be hung)."""
    from playwright.async_api import Error as PlaywrightError

    if page is None:
        return "no page was opened"
    try:
        states = await page.locator("body").evaluate(STATES_JS, timeout=5000)
        status = await page.locator("body").evaluate(STATUS_JS, timeout=5000)
        text = await page.locator("[data-testid='stMain']").inner_text(timeout=5000)
    except PlaywrightError as exc:
        return f"the page at {page.url} could not be read ({exc.message.splitlines()[0]})"
    return (f"the page at {page.url} (connection, script: {states}), status line {status!r}, "
            f"main area {text.replace(chr(10), ' / ')[:600]!r}")


def _probe(url, stop, out):
    """Ask ``url`` every 0.5 s until ``stop`` is set (at least once: a run shorter than this
    process's start still gets an answer); send ``(seconds since the start, answer time or
    None when no answer came within 5 s)`` of each request through ``out``."""
    times, start = [], time.perf_counter()
    while True:
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                r.read()
            times.append((t0 - start, time.perf_counter() - t0))
        except OSError:
            times.append((t0 - start, None))
        if stop.wait(0.5):
            break
    out.send(times)


class HealthProbe:
    """Asks ``/_stcore/health`` every 0.5 s from a process of its own (in this one it would
    wait behind the browsers' driver, and measure that instead of the server)."""

    def __init__(self, url):
        ctx = multiprocessing.get_context("spawn")
        self._stop, (self._receive, send) = ctx.Event(), ctx.Pipe(duplex=False)
        self._process = ctx.Process(target=_probe, args=(url + "/_stcore/health", self._stop,
                                                         send), daemon=True)
        self.times = []

    def start(self, cpus=None):
        """Start asking; ``cpus``: the cores the probe may run on (None: any)."""
        self._process.start()
        if cpus is not None:
            pin(self._process.pid, cpus)

    def stop(self):
        self._stop.set()
        self.times = self._receive.recv()
        self._process.join()


@dataclass
class ClassResult:
    """One class size: the sessions, health answers, memory (MB) and CPU time (s)."""

    sessions: list
    health: list
    memory: dict
    cpu: dict
    wall: float

    @property
    def latencies(self):
        """Every Step latency (ms) of every session."""
        return [x for s in self.sessions for x in s.latencies]

    @property
    def failed(self):
        """The sessions that saw something wrong."""
        return [s for s in self.sessions if s.problems]
