"""A class at once: many browser sessions on one real server, each checked against a lone run.

``python -m benchmarks.load [--sessions 5 20] [--steps 6] [--ttl 10] [--nice 0] [--split-cores]``
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
import os
import statistics
import time

from cbviz.app import ENTRY
from cbviz.app.streamlit_server import serve

from .browser import CHROMIUM, FLAGS
from .processes import cpu_seconds, descendants, machine_jiffies, pin, rss_mb
from .students import ClassResult, HealthProbe, Session, drive, expected, plan

class Watcher:
    """Every 0.5 s: the server's memory, and the CPU time of every browser process (Chromium
    and Playwright's driver: the descendants of this process outside the server) while it
    lives, since a closed context's processes are gone by the end.  ``nice`` lowers the
    browsers' priority (students' browsers run on their own machines, not the server's)."""

    def __init__(self, server, nice=0):
        self.server, self.nice = server, nice
        self.peak_mb, self.browser_cpu, self._seen = rss_mb(server.pid), {}, set()

    def sample(self):
        self.peak_mb = max(self.peak_mb, rss_mb(self.server.pid))
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
    memory = {"before": rss_mb(server.pid)}
    probe = HealthProbe(server.url)
    probe.start(server_cpus)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        watcher = Watcher(server, nice)
        watcher.sample()
        browser0 = sum(watcher.browser_cpu.values())
        server0, machine0, t0 = cpu_seconds([server.pid]), machine_jiffies(), time.perf_counter()
        task = asyncio.create_task(watcher.run())
        await asyncio.gather(*(drive(browser, server.url, s, wants[s.query], steps)
                               for s in sessions))
        wall = time.perf_counter() - t0
        busy, total = (b - a for a, b in zip(machine0, machine_jiffies()))
        task.cancel()
        cpu = {"server": cpu_seconds([server.pid]) - server0,
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
        readings.append(rss_mb(server.pid))
        time.sleep(0.3)
    return min(readings)


def run_classes(sizes, steps, ttl=10, nice=0, split=False):
    """Start the app, warm it with one session, then run each class size in turn (browsers
    at priority ``nice``).  ``split``: the server and the health probe get the first core to
    themselves, the browsers (started from this process) share the others."""
    wants = {q: expected(q, steps) for q in set(plan(max(sizes)))}
    mine = os.sched_getaffinity(0)
    with serve(ENTRY, "--server.disconnectedSessionTTL", str(ttl)) as server:
        server_cpus = None
        if split:
            if len(mine) < 2:
                raise SystemExit("--split-cores needs at least two cores")
            server_cpus = {min(mine)}
            for pid in (server.pid, *descendants(server.pid)):
                pin(pid, server_cpus)
            pin(os.getpid(), mine - server_cpus)
        try:
            start = rss_mb(server.pid)
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
    ap = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__,
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
                    help="worker counts to run behind nginx (cbviz serve), each with the "
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
