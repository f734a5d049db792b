"""The scenarios of :mod:`benchmarks.class_of_100` on running servers: one tab's actions one at
a time with the server's CPU read around each (:func:`costs`), and a class of protocol-level
students opening a page and clicking Step on a schedule (:func:`crowd`).  Private to
:mod:`benchmarks.class_of_100`.
"""
from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field

from ._class_load_run import GUESS, LOCK, _cpu, _minus
from ._protocol_load import Load, _clicks, _open, server_cpu
from .protocol import Tab

STEP, RESET = "Step", "Reset"


@dataclass(frozen=True)
class Page:
    """A page a scenario drives: its name in the report, URL path and query string; ``lesson``:
    a lesson stage, whose Step button shows once a guess is locked and goes when the stage's
    run is done (a new series reopens the link), else the step page (a new series: Reset)."""

    name: str
    path: str
    query: str
    lesson: bool = False

    @property
    def link(self):
        return f"/{self.path}?{self.query}"


STEP_PAGE = Page("step page", "step_through_cbboost", "source=toy&toy=moons&n_samples=300"
                 "&toy_noise=0.25&pool=stumps&n_thresholds=10")
#: lesson 2, stage 3: ten Steps, from the 2 voters of stages 1-2 to 12
LESSON = Page("lesson 2, stage 3", "lessons", "lesson=2&stage=3", lesson=True)
#: the step page's elements with nothing computed (benchmarks/step_floor_app.py, its own server)
FLOOR = Page("Streamlit's floor", "", "")
CLASS_LINK = Page("class link", "lessons", "lesson=2&stage=1&hide=navigation,sidebar,advanced,"
                  "algorithm,export,glossary,teacher", lesson=True)


def cpu_clock(pid):
    """CPU seconds (user + system) of process ``pid``, all its threads, to the nanosecond: its
    CPU-time clock (Linux's ``MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)``); /proc counts in
    10 ms ticks."""
    return time.clock_gettime((~pid << 3) | 2)


# --- scenario 1: one tab, one action at a time ------------------------------------------------

@dataclass
class Measured:
    """One action and what it cost the server from its send to the next action's: CPU seconds
    from the process's clock (``cpu``) and from /proc (``proc``, :func:`server_cpu`), and the
    wall seconds in between (the idle server's share is ``idle_rate * wall``)."""

    action: object
    cpu: float
    proc: float
    wall: float


@dataclass
class Costs:
    """Scenario 1 on one page: the first open (the warm-up), the measured opens and Steps, the
    index of each series' first Step, the idle server's CPU seconds per second (a tab open,
    nothing clicked) and the uncounted actions that began a series."""

    page: Page
    warm: Measured = None
    opens: list = field(default_factory=list)
    steps: list = field(default_factory=list)
    firsts: list = field(default_factory=list)
    idle_rate: float = 0.0
    uncounted: int = 0

    def net(self, m, proc=False):
        """Server CPU seconds of ``m`` (``proc``: as /proc counts them) over the idle server's."""
        return (m.proc if proc else m.cpu) - self.idle_rate * m.wall

    def errors(self):
        measured = [self.warm, *self.opens, *self.steps]
        return [e for m in measured if m is not None for e in m.action.errors]


async def _measure(pid, act, pause):
    """``act()``'s Action, with the server's CPU from the send until ``pause`` seconds after the
    run's end (what the server does once the run is over counts too)."""
    c0, p0, t0 = cpu_clock(pid), server_cpu(pid), time.perf_counter()
    action = await act()
    await asyncio.sleep(pause)
    return Measured(action, cpu_clock(pid) - c0, server_cpu(pid) - p0, time.perf_counter() - t0)


def _steppable(tab):
    return any(w.label == STEP and not w.disabled for w in tab.widgets())


async def _new_series(tab, page):
    """Make the Step button usable again without counting it: the step page's Reset; on a
    lesson stage, the link reopened if the stage is done, and a guess locked."""
    if not page.lesson:
        await tab.click(RESET)
        return
    if not any(w.label.startswith(GUESS + ": ") for w in tab.widgets()):   # "...: question"
        await tab.open(page.path, page.query)
    await tab.set(GUESS, 0)        # the first answer; the form holds it until the submit
    await tab.submit(LOCK)


async def costs(url, pid, page, opens=20, steps=30, idle=5.0, pause=0.2, timeout=180.0):
    """Scenario 1 on ``page`` of the lone worker ``pid`` at ``url``: one warm-up open (its tab
    then stays open, idle), ``opens`` page loads of another tab, ``idle`` seconds of both
    doing nothing, then ``steps`` Steps in series (each series begun by
    :func:`_new_series`, not counted), every action timed and its CPU read; a
    :class:`Costs`."""
    out = Costs(page)
    # the warm-up's tab stays open, idle, as another student's: Streamlit forgets the page
    # scripts it compiled when its last tab closes, which a class never sees (a lone tab
    # reopening a page would pay the compile at every load)
    async with Tab(url, timeout=timeout) as other, Tab(url, timeout=timeout) as tab:
        out.warm = await _measure(pid, lambda: other.open(page.path, page.query), pause)

        def load():
            return tab.open(page.path, page.query)
        for _ in range(opens):
            out.opens.append(await _measure(pid, load, pause))
        c0, t0 = cpu_clock(pid), time.perf_counter()
        await asyncio.sleep(idle)
        out.idle_rate = (cpu_clock(pid) - c0) / (time.perf_counter() - t0)
        while len(out.steps) < steps:
            first = not out.steps
            if not _steppable(tab):
                await _new_series(tab, page)
                out.uncounted, first = out.uncounted + 1, True
                if not _steppable(tab):
                    raise RuntimeError(f"{page.link}: no Step button after a new series; the "
                                       f"page has {[w.label for w in tab.widgets()]}")
            if first:
                out.firsts.append(len(out.steps))
            out.steps.append(await _measure(pid, lambda: tab.click(STEP), pause))
    return out


# --- scenarios 2 to 4: a class of students ------------------------------------------------------

class Student(Tab):
    """A student's tab: a Step due when the run has stopped (the button disabled) resets the
    run first; the Reset is an action of kind ``"reset"``, not a Step."""

    async def click(self, label, *, key=None, wait=True):
        if label == STEP and self.widget(STEP).disabled:
            await super().click(RESET)
            self.actions[-1].kind = "reset"
        return await super().click(label, key=key, wait=wait)


@dataclass
class Crowd(Load):
    """A class on a server (:class:`~benchmarks._protocol_load.Load`: its tabs, each phase's
    wall seconds, the server's CPU seconds and the late clicks), with each phase's CPU per
    server process, of this client and of the whole machine (``detail``)."""

    pids: dict = field(default_factory=dict)
    detail: dict = field(default_factory=dict)

    async def phase(self, name, work):
        """Await ``work``, timing it and reading the CPU around it; its result."""
        c0, t0 = _cpu(self.pids), time.perf_counter()
        try:
            return await work
        finally:
            self.wall[name] = time.perf_counter() - t0
            self.detail[name] = used = _minus(_cpu(self.pids), c0)
            self.cpu[name] = sum(used[p] for p in self.pids)

    def split(self):
        """Students per worker: the worker each tab's websocket reached (nginx's header)."""
        out = dict.fromkeys(self.pids, 0)
        out.pop("nginx", None)
        for t in self.tabs:
            out[t.worker or "unknown"] = out.get(t.worker or "unknown", 0) + 1
        return out


async def warm_up(urls, page, timeout=180.0):
    """One tab opens ``page`` on each worker, straight to it (as a teacher checking the link:
    the worker's pages imported and the page's data cached)."""
    async def one(url):
        async with Tab(url, timeout=timeout) as tab:
            await tab.open(page.path, page.query)
    await asyncio.gather(*(one(u) for u in urls))


async def crowd(url, pids, students, page, within, every=3.0, duration=0.0, timeout=180.0,
                seed=0):
    """``students`` tabs open ``page`` at ``url``, spread evenly over ``within`` seconds (phase
    ``"open"``); then, if ``duration``, each clicks Step every ``every`` seconds for ``duration``
    seconds, the first at a random moment of the first period (phase ``"click"``: a Step due
    while the last one runs goes when it ends, counted late).  A :class:`Crowd`."""
    rng = random.Random(seed)
    out = Crowd([Student(url, timeout=timeout) for _ in range(students)], pids=pids)
    try:
        await out.phase("open", asyncio.gather(*(
            _open(t, page.path, page.query, within * i / max(students - 1, 1))
            for i, t in enumerate(out.tabs))))
        if duration:
            live = [t for t in out.tabs if t._closed is None and t.actions[0].done]
            t0 = time.perf_counter()
            late = await out.phase("click", asyncio.gather(*(
                _clicks(t, [STEP], every, t0, t0 + duration, rng.uniform(0, every))
                for t in live)))
            out.late = sum(late)
    finally:
        await asyncio.gather(*(t.close() for t in out.tabs), return_exceptions=True)
    return out
