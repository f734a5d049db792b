"""A class at once: many browser sessions on one real server, each checked against a lone run.

``python -m cbviz.tools.load [--sessions 5 20] [--steps 6] [--ttl 10] [--nice 0] [--split-cores]``
starts the real app and, for each class size, opens that many sessions (browser contexts of one
headless Chromium: separate cookies and websockets, as separate students) at the same time.  Half of them use the
*same* settings (the two-moons set: one cached problem shared by all of them), the others each
their own data set (toy sets and benchmarks).  Each session

* opens the step page from a link, takes Steps and, halfway, goes to another page and back
  (a page change while other sessions load the server is when widget state used to be lost);
* after every Step compares the status line (iteration, C-bound, train error, 4 decimals)
  with a lone CB-Boost run computed here, in this process, from the same settings, and the
  caption with its own data set and sizes.

Meanwhile a process of its own asks the server's health endpoint every 0.5 s (5 s timeout).  After the
sessions close, the tool waits for the server to drop them (``--ttl`` seconds, passed as
``server.disconnectedSessionTTL``) and reads the server's resident memory.  Printed per class
size: sessions that saw only their own data set and correct numbers, Step latency (click to
the new iteration on screen and idle; median and worst), health answers, the server's memory
(start, warm, peak, after closing), and CPU time of the server against the browser processes
on the same machine (``--nice 10`` lowers the browsers' priority, as if they ran on the
students' own machines; ``--split-cores`` gives the server and the probe the first core alone
and the browsers the others).  Every wait is on page state, never a fixed sleep.
"""
from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import re
import statistics
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

from .server import (
    CHROMIUM,
    FLAGS,
    IDLE,
    ROOT,
    cpu_seconds,
    descendants,
    machine_jiffies,
    pin,
    serve,
)

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
    from ..algorithms.registry import ALGORITHMS, make_algorithm
    from ..workbench import Settings, build_problem

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
    left open (the kill drill of :mod:`cbviz.tools.load_fleet` goes on with it)."""
    description, sizes, lines = want
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    kept = False
    try:
        page = await context.new_page()
        await page.goto(f"{url}/step_through_cbboost?{session.query}", timeout=TIMEOUT)
        await page.wait_for_selector("[data-testid='stAppViewContainer']", timeout=TIMEOUT)
        await _idle(page)
        await _caption_ok(page, session, description, sizes, "on opening")
        for k in range(1, min(steps, len(lines)) + 1):
            t0 = time.perf_counter()
            await page.locator(".st-key-step_once button").click(timeout=TIMEOUT)
            await page.wait_for_function(SHOWN_JS, arg=k, timeout=TIMEOUT)
            await _idle(page)
            session.latencies.append((time.perf_counter() - t0) * 1e3)
            shown = await page.evaluate(STATUS_JS)
            if shown != lines[k - 1]:
                session.problems.append(f"step {k}: shows {shown!r}, a lone run {lines[k - 1]!r}")
            if k == steps // 2:  # another page and back: the data set and the run must stay
                await page.get_by_role("link", name="Gradient vs exhaustive").click(
                    timeout=TIMEOUT)
                await page.get_by_text("Every candidate at one iteration").wait_for(
                    timeout=TIMEOUT)
                await _idle(page)
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
        session.problems.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
    finally:
        if not kept:
            await context.close()


def _probe(url, stop, out):
    """Ask ``url`` every 0.5 s until ``stop`` is set; send ``(seconds since the start, answer
    time or None when no answer came within 5 s)`` of each request through ``out``."""
    times, start = [], time.perf_counter()
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                r.read()
            times.append((t0 - start, time.perf_counter() - t0))
        except OSError:
            times.append((t0 - start, None))
        stop.wait(0.5)
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


class Watcher:
    """Every 0.5 s: the server's memory, and the CPU time of every browser process (Chromium
    and Playwright's driver: the descendants of this process outside the server) while it
    lives, since a closed context's processes are gone by the end.  ``nice`` lowers the
    browsers' priority (students' browsers run on their own machines, not the server's)."""

    def __init__(self, server, nice=0):
        self.server, self.nice = server, nice
        self.peak_mb, self.browser_cpu, self._seen = server.rss_mb(), {}, set()

    def sample(self):
        self.peak_mb = max(self.peak_mb, self.server.rss_mb())
        inside = set(descendants(self.server.pid)) | {self.server.pid}
        for pid in descendants(os.getpid()):
            if pid in inside:
                continue
            if self.nice and pid not in self._seen:
                try:
                    os.setpriority(os.PRIO_PROCESS, pid, self.nice)
                except OSError:  # already gone
                    pass
            self._seen.add(pid)
            used = cpu_seconds([pid])
            self.browser_cpu[pid] = max(self.browser_cpu.get(pid, 0.0), used)

    async def run(self):
        while True:
            self.sample()
            await asyncio.sleep(0.5)


async def _class(server, n_sessions, steps, wants, ttl, nice=0, server_cpus=None):
    from playwright.async_api import async_playwright

    sessions = [Session(q) for q in plan(n_sessions)]
    memory = {"before": server.rss_mb()}
    probe = HealthProbe(server.url)
    probe.start(server_cpus)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        watcher = Watcher(server, nice)
        watcher.sample()
        browser0 = sum(watcher.browser_cpu.values())
        server0, machine0, t0 = server.cpu_seconds(), machine_jiffies(), time.perf_counter()
        task = asyncio.create_task(watcher.run())
        await asyncio.gather(*(drive(browser, server.url, s, wants[s.query], steps)
                               for s in sessions))
        wall = time.perf_counter() - t0
        busy, total = (b - a for a, b in zip(machine0, machine_jiffies()))
        task.cancel()
        cpu = {"server": server.cpu_seconds() - server0,
               "browser": sum(watcher.browser_cpu.values()) - browser0,
               "machine busy": busy / max(total, 1)}
        await browser.close()
    probe.stop()
    memory["peak"] = watcher.peak_mb
    memory["after"] = _after_sessions_dropped(server, ttl)
    return ClassResult(sessions, probe.times, memory, cpu, wall)


def _after_sessions_dropped(server, ttl):
    """Resident memory once the server has dropped the closed sessions (TTL + a margin): the
    lowest of ten readings over the next few seconds."""
    time.sleep(ttl + 3)  # the server's own clock: nothing on a page to wait for
    readings = []
    for _ in range(10):
        readings.append(server.rss_mb())
        time.sleep(0.3)
    return min(readings)


def run_classes(sizes, steps, ttl=10, nice=0, split=False):
    """Start the app, warm it with one session, then run each class size in turn (browsers
    at priority ``nice``).  ``split``: the server and the health probe get the first core to
    themselves, the browsers (started from this process) share the others."""
    wants = {q: expected(q, steps) for q in set(plan(max(sizes)))}
    mine = os.sched_getaffinity(0)
    with serve(ROOT / "app.py", "--server.disconnectedSessionTTL", str(ttl)) as server:
        server_cpus = None
        if split:
            if len(mine) < 2:
                raise SystemExit("--split-cores needs at least two cores")
            server_cpus = {min(mine)}
            for pid in (server.pid, *descendants(server.pid)):
                pin(pid, server_cpus)
            pin(os.getpid(), mine - server_cpus)
        try:
            start = server.rss_mb()
            warm = asyncio.run(_class(server, 1, steps, wants, ttl, nice, server_cpus))
            results = {n: asyncio.run(_class(server, n, steps, wants, ttl, nice, server_cpus))
                       for n in sizes}
        finally:
            pin(os.getpid(), mine)
    return start, warm, results


def report(start, warm, results):
    """The printed summary."""
    out = [f"server memory at start {start:.0f} MB; after one warm-up session closed "
           f"{warm.memory['after']:.0f} MB"]
    for n, r in results.items():
        lat = r.latencies
        answered = [t for _, t in r.health if t is not None]
        missed = [f"{at:.0f}" for at, t in r.health if t is None]
        used = r.cpu["server"] + r.cpu["browser"]
        out += [
            f"{n} sessions ({r.wall:.0f} s): {n - len(r.failed)} of {n} saw only their own data "
            f"set and the lone run's numbers",
            *(f"  session {r.sessions.index(s)} ({s.query}): {'; '.join(s.problems)}"
              for s in r.failed),
            f"  Step latency: median {statistics.median(lat):.0f} ms, worst {max(lat):.0f} ms "
            f"(n={len(lat)})" if lat else "  no Step completed",
            f"  health: {len(answered)} of {len(r.health)} answered within 5 s, slowest "
            f"{max(answered, default=float('nan')) * 1e3:.0f} ms"
            + (f"; no answer at {', '.join(missed)} s" if missed else ""),
            f"  server memory: before {r.memory['before']:.0f} MB, peak {r.memory['peak']:.0f} "
            f"MB, after the sessions closed {r.memory['after']:.0f} MB",
            f"  CPU: server {r.cpu['server']:.0f} s, browser processes {r.cpu['browser']:.0f} s "
            f"({r.cpu['browser'] / max(used, 1e-9):.0%} of the two; the machine's "
            f"{os.cpu_count()} cores busy {r.cpu['machine busy']:.0%} of the time)",
        ]
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m cbviz.tools.load", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, nargs="+", default=[5, 20])
    ap.add_argument("--steps", type=int, default=6, help="Steps per session")
    ap.add_argument("--ttl", type=int, default=10,
                    help="seconds the server keeps a closed session (disconnectedSessionTTL)")
    ap.add_argument("--nice", type=int, default=0,
                    help="priority of the browser processes (e.g. 10: the server comes first, "
                         "as when the browsers run on the students' machines)")
    ap.add_argument("--split-cores", action="store_true",
                    help="the server (and the health probe) on the first core alone, the "
                         "browsers on the others: the server does not share its CPU with the "
                         "students' browsers, as on a real class server")
    ap.add_argument("--workers", type=int, nargs="+",
                    help="worker counts to run behind nginx (cbviz.tools.serve), each with the "
                         "kill-a-worker drill when there are two or more; without it: one bare "
                         "Streamlit server")
    args = ap.parse_args(argv)
    if args.workers:
        from .load_fleet import report_fleets, run_fleets
        wants = {q: expected(q, args.steps) for q in set(plan(max(args.sessions)))}
        print(report_fleets(run_fleets(args.workers, args.sessions, args.steps, wants,
                                       args.ttl)), flush=True)
        return
    print(report(*run_classes(args.sessions, args.steps, args.ttl, args.nice,
                              args.split_cores)))


if __name__ == "__main__":
    main()
