"""A class at once on several workers behind nginx, and the kill-a-worker drill.

``python -m benchmarks.load --workers 1 2 --sessions 20 40`` runs, for each worker count and
class size, a fresh :func:`cbviz.app.serve.serve_class` and the load tool's students
(:func:`benchmarks.students.drive`: each checks every Step against a lone run).  Then, with two
workers or more, the drill: the worker holding the most sessions is killed (SIGKILL) and each
open session must show its own status line again (reconnected to a live worker, its link
replayed).  Printed per worker count: health answers on time, Step latency percentiles, CPU
time and memory of each worker, sessions per worker, and sessions restored / total.
"""
from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass

from cbviz.app.serve import serve_class

from .browser import CHROMIUM, FLAGS
from .processes import cpu_seconds, rss_mb
from .students import ClassResult, HealthProbe, Session, drive, plan

RESTORE_MS = 120_000
# every change of the page's connection state, kept in the page (set up before the kill)
WATCH_JS = ("() => { const e = document.querySelector('[data-test-connection-state]');"
            " window.__cbvizStates = []; new MutationObserver(() => window.__cbvizStates.push("
            "e.getAttribute('data-test-connection-state'))).observe(e, {attributes: true}); }")
# back: the connection was lost and is up again, the script idle, the status line shown
BACK_JS = ("([status, moved]) => {"
           " const e = document.querySelector('[data-test-connection-state]');"
           " const a = document.querySelector(\"[data-testid='stApp']\");"
           " return (!moved || window.__cbvizStates.some(s => s !== 'CONNECTED'))"
           " && e.getAttribute('data-test-connection-state') === 'CONNECTED'"
           " && a.getAttribute('data-test-script-state') === 'notRunning'"
           " && document.body.innerText.includes(status); }")


@dataclass
class FleetResult:
    """One worker count and class size (``latencies`` and ``failed`` as for one server)."""

    workers: int
    sessions: list
    health: list
    cpu: dict          # worker address -> CPU seconds during the class
    memory: dict       # worker address -> (before, peak) MB
    placement: dict    # worker address -> sessions on it
    restored: tuple | None   # (restored, on the killed worker, total) or None (no drill)
    restore_seconds: list
    wall: float

    latencies = ClassResult.latencies
    failed = ClassResult.failed


async def _worker_of(context, url):
    response = await context.request.get(url + "/_stcore/health")
    return response.headers.get("x-cbviz-worker", "?").split(",")[-1].strip()


async def _sample_memory(cls, peak):
    while True:
        for w in cls.workers:
            try:
                peak[w.address] = max(peak.get(w.address, 0.0), rss_mb(w.pid))
            except OSError:   # a killed worker
                pass
        await asyncio.sleep(0.5)


async def _drill(cls, kept, placement_of):
    """Kill the busiest worker; wait for every open session to show its status again."""
    victim_address = max(placement_of.values(), key=list(placement_of.values()).count)
    victim = cls.worker_of(victim_address)
    for _, page, _ in kept:
        await page.evaluate(WATCH_JS)
    victim.kill()
    t0 = time.perf_counter()

    async def back(page, status):
        moved = placement_of[id(page)] == victim_address
        try:   # a moved session must have lost its connection and be drawn anew
            await page.wait_for_function(BACK_JS, arg=[status, moved], timeout=RESTORE_MS)
            return time.perf_counter() - t0
        except Exception:  # noqa: BLE001 - a session that does not come back is counted
            return None
    times = await asyncio.gather(*(back(page, status) for _, page, status in kept))
    moved = sum(1 for addr in placement_of.values() if addr == victim_address)
    restored = sum(t is not None for t in times)
    return (restored, moved, len(kept)), [t for t in times if t is not None]


async def _class(cls, n_sessions, steps, wants, drill):
    from playwright.async_api import async_playwright

    sessions = [Session(q) for q in plan(n_sessions)]
    probe = HealthProbe(cls.url)
    probe.start()
    before = {w.address: rss_mb(w.pid) for w in cls.workers}
    peak = dict(before)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        cpu0 = {w.address: cpu_seconds([w.pid]) for w in cls.workers}
        sampler = asyncio.create_task(_sample_memory(cls, peak))
        kept, t0 = [], time.perf_counter()
        await asyncio.gather(*(drive(browser, cls.url, s, wants[s.query], steps, keep=kept)
                               for s in sessions))
        wall = time.perf_counter() - t0
        cpu = {w.address: cpu_seconds([w.pid]) - cpu0[w.address] for w in cls.workers}
        where = {id(page): await _worker_of(context, cls.url) for context, page, _ in kept}
        placement = {w.address: list(where.values()).count(w.address) for w in cls.workers}
        restored, seconds = (None, [])
        if drill and len(cls.workers) > 1 and kept:
            restored, seconds = await _drill(cls, kept, where)
        sampler.cancel()
        for context, _, _ in kept:
            await context.close()
        await browser.close()
    probe.stop()
    memory = {a: (before[a], peak[a]) for a in before}
    return FleetResult(len(cls.workers), sessions, probe.times, cpu, memory, placement, restored,
                       seconds, wall)


def run_fleets(worker_counts, sizes, steps, wants, ttl=10, drill=True):
    """Each worker count and class size on a fresh set of workers: ``{(workers, n): result}``."""
    results = {}
    for workers in worker_counts:
        for n in sizes:
            with serve_class(workers, options=("--server.disconnectedSessionTTL", str(ttl))
                             ) as cls:
                results[workers, n] = asyncio.run(_class(cls, n, steps, wants, drill))
    return results


def _percentiles(values):
    if not values:
        return "no Step completed"
    q = (statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1
         else values * 99)
    return (f"median {q[49]:.0f} ms, p90 {q[89]:.0f} ms, p99 {q[98]:.0f} ms, worst "
            f"{max(values):.0f} ms (n={len(values)})")


def report_fleets(results):
    """The printed summary of :func:`run_fleets`."""
    out = []
    for (workers, n), r in results.items():
        answered = [t for _, t in r.health if t is not None]
        late = sum(1 for t in answered if t > 1.0)
        out += [f"{workers} worker{'s' * (workers > 1)}, {n} sessions ({r.wall:.0f} s): "
                f"{n - len(r.failed)} of {n} saw only their own data and the lone run's numbers",
                f"  health: {len(answered)} of {len(r.health)} answered within 5 s "
                f"({late} took over 1 s)",
                f"  Step latency: {_percentiles(r.latencies)}"]
        for address, (before, peak) in r.memory.items():
            n_here = r.placement.get(address, 0)
            out.append(f"  worker {address}: {n_here} session{'s' * (n_here != 1)}, CPU "
                       f"{r.cpu[address]:.0f} s, memory {before:.0f} MB before, peak {peak:.0f} MB")
        if r.restored is not None:
            restored, moved, total = r.restored
            worst = f", the last after {max(r.restore_seconds):.1f} s" if r.restore_seconds else ""
            out.append(f"  kill drill: {restored} of {total} sessions restored on their own "
                       f"iteration ({moved} {'was' if moved == 1 else 'were'} on the killed "
                       f"worker){worst}")
        elif workers > 1:
            out.append("  kill drill: not run")
        for s in r.failed:
            out.append(f"  session {r.sessions.index(s)} ({s.query}): {'; '.join(s.problems)}")
    return "\n".join(out)
