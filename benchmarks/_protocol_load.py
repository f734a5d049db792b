"""Many :class:`benchmarks.protocol.Tab` at once in one process: the command line of
``python -m benchmarks.protocol``.  Private to :mod:`benchmarks.protocol`; a scenario of its
own (a class, a teacher and students) drives :class:`~benchmarks.protocol.Tab` directly and
may reuse :func:`percentile`, :func:`server_cpu` and :class:`Load`'s report.

Two phases, each timed on the server's CPU (``--server-pid``: the process and every
descendant, from ``/proc``):

1. page load: every tab opens the page, all at once or spread evenly over ``--ramp`` seconds;
2. actions: each tab clicks ``--click`` (several labels: in turn) every ``--every`` seconds
   for ``--duration`` seconds, the first click of each tab at a random offset within the
   first period (seeded).  A tab clicks only once its previous run has finished: a click
   due while the last one still runs goes as soon as it ends and is counted late.

Meanwhile a process of its own asks the server's health endpoint every 0.5 s
(:class:`benchmarks.students.HealthProbe`).  The waits between clicks are the schedule (a
student's think time); every wait on the server is on its messages.
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import os
import random
import time
from dataclasses import dataclass, field

from .protocol import Tab

_TICK = os.sysconf("SC_CLK_TCK")


def percentile(values, q):
    """The ``q``-th percentile (0-100) of ``values`` by the nearest-rank rule; nan if empty."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def server_cpu(pid):
    """CPU seconds (user + system) of process ``pid`` and its descendants, the children they
    have already waited for included."""
    from .processes import descendants
    total = 0
    for p in (pid, *descendants(pid)):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return total / _TICK


@dataclass
class Load:
    """What a run measured: the tabs (their actions and errors), the phases' wall and server
    CPU seconds, the late clicks and the health probe's answers ``(at, seconds or None)``."""

    tabs: list
    wall: dict = field(default_factory=dict)
    cpu: dict = field(default_factory=dict)
    late: int = 0
    health: list = field(default_factory=list)
    client_cpu: float = 0.0

    def actions(self, kind):
        return [a for t in self.tabs for a in t.actions if a.kind == kind]

    def errors(self):
        return [e for t in self.tabs for e in t.errors]

    def report(self, title=""):
        out = [title] if title else []
        for name, kind in (("page load", "open"), ("action", "click")):
            acts = self.actions(kind)
            done = [a for a in acts if a.done]
            ms = [a.latency * 1e3 for a in done]
            per = self.cpu.get(kind)
            out.append(
                f"{name}: {len(done)} of {len(acts)} finished; latency p50 "
                f"{percentile(ms, 50):.0f} ms, p95 {percentile(ms, 95):.0f} ms, max "
                f"{max(ms, default=math.nan):.0f} ms; {_mean([a.bytes for a in done]) / 1e3:.1f}"
                f" kB and {_mean([a.messages for a in done]):.0f} ForwardMsgs each"
                + (f"; server CPU {per * 1e3 / max(len(done), 1):.0f} ms each "
                   f"({per:.1f} s in {self.wall[kind]:.0f} s)" if per is not None else ""))
        later = [a.latency * 1e3 for t in self.tabs
                 for a in [a for a in t.actions if a.kind == "click"][1:] if a.done]
        if later:
            out.append(f"  each tab's first click left out: p50 {percentile(later, 50):.0f} ms, "
                       f"p95 {percentile(later, 95):.0f} ms, max {max(later):.0f} ms "
                       f"(n={len(later)})")
        if self.late:
            out.append(f"late clicks (the previous run still going when due): {self.late}")
        errors = self.errors()
        out.append(f"errors: {len(errors)}" + "".join(f"\n  {e}" for e in errors[:10])
                   + (f"\n  ... {len(errors) - 10} more" if len(errors) > 10 else ""))
        if self.health:
            answered = [t for _, t in self.health if t is not None]
            out.append(f"health: {len(answered)} of {len(self.health)} answered within 5 s, "
                       f"slowest {max(answered, default=math.nan) * 1e3:.0f} ms")
        wall = sum(self.wall.values())
        out.append(f"this client: {self.client_cpu:.1f} s CPU in {wall:.0f} s "
                   f"({self.client_cpu / max(wall, 1e-9):.0%} of a core)")
        return "\n".join(out)


def _mean(values):
    return sum(values) / len(values) if values else math.nan


async def _open(tab, page, query, delay):
    await asyncio.sleep(delay)  # the ramp: when this student opens the link
    try:
        await tab.open(page, query)
    except (ConnectionError, TimeoutError, OSError):
        pass  # recorded in tab.errors and the action


async def _clicks(tab, labels, every, start, end, offset):
    late = 0
    due = start + offset
    for label in itertools.cycle(labels):
        if due >= end:
            break
        wait = due - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)  # the student's think time: the schedule
        else:
            late += due > start + offset  # not the first: the previous run made it late
        try:
            await tab.click(label)
        except LookupError as exc:  # no such button, or disabled: this tab stops here
            tab.errors.append(f"click {label!r}: {exc}")
            break
        except (ConnectionError, TimeoutError):  # the tab has recorded it
            break
        due += every
    return late


async def run_load(url, page="", query="", tabs=10, clicks=(), every=3.0, duration=30.0,
                   ramp=0.0, server_pid=None, timeout=120.0, seed=0, health=True):
    """Open ``tabs`` tabs on ``url/page?query`` and click ``clicks`` in each; a :class:`Load`."""
    rng = random.Random(seed)
    result = Load([Tab(url, timeout=timeout) for _ in range(tabs)])
    probe = None
    if health:
        from .students import HealthProbe
        probe = HealthProbe(url)
        probe.start()
    cpu0 = os.times()
    try:
        cpu = server_cpu(server_pid) if server_pid else None
        t0 = time.perf_counter()
        await asyncio.gather(*(_open(t, page, query, ramp * i / max(tabs - 1, 1))
                               for i, t in enumerate(result.tabs)))
        result.wall["open"] = time.perf_counter() - t0
        if server_pid:
            result.cpu["open"], cpu = server_cpu(server_pid) - cpu, server_cpu(server_pid)
        if clicks:
            live = [t for t in result.tabs if t._closed is None and t.actions
                    and t.actions[0].done]
            t1 = time.perf_counter()
            lates = await asyncio.gather(*(
                _clicks(t, list(clicks), every, t1, t1 + duration, rng.uniform(0, every))
                for t in live))
            result.late = sum(lates)
            result.wall["click"] = time.perf_counter() - t1
            if server_pid:
                result.cpu["click"] = server_cpu(server_pid) - cpu
    finally:
        await asyncio.gather(*(t.close() for t in result.tabs), return_exceptions=True)
        if probe is not None:
            probe.stop()
            result.health = probe.times
        cpu1 = os.times()
        result.client_cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.protocol", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Simulated browser tabs (Streamlit's websocket protocol) on a running "
                    "server: page-load and action latency, errors, bytes and server CPU.\n\n"
                    + __doc__.split("\n\n", 1)[1])
    ap.add_argument("--url", default="http://127.0.0.1:8501", help="the server (or the proxy)")
    ap.add_argument("--page", default="", help="the page's URL path (default: the home page)")
    ap.add_argument("--query", default="", help="the link's query string, without '?'")
    ap.add_argument("--tabs", type=int, default=10, help="tabs at once")
    ap.add_argument("--click", nargs="*", default=[],
                    help="label(s) of the button(s) each tab clicks, in turn")
    ap.add_argument("--every", type=float, default=3.0, help="seconds between a tab's clicks")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds of clicking")
    ap.add_argument("--ramp", type=float, default=0.0,
                    help="seconds over which the tabs open (default: all at once)")
    ap.add_argument("--server-pid", type=int,
                    help="the server's process id: its CPU (and its descendants') per action")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds a run may take")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first clicks' offsets")
    ap.add_argument("--no-health", action="store_true", help="no health probe")
    args = ap.parse_args(argv)
    result = asyncio.run(run_load(
        args.url, args.page, args.query, args.tabs, args.click, args.every, args.duration,
        args.ramp, args.server_pid, args.timeout, args.seed, not args.no_health))
    where = f"{args.url}/{args.page}" + (f"?{args.query}" if args.query else "")
    what = (f", clicking {' / '.join(map(repr, args.click))} every {args.every:g} s for "
            f"{args.duration:g} s" if args.click else "")
    print(result.report(f"{args.tabs} tabs on {where}{what}"), flush=True)
    return result
