"""A class of 100 on one small machine (issue #29): the numbers of its closing note, from
protocol-level tabs (:class:`benchmarks.protocol.Tab`), all in one run.

``python -m benchmarks.class_of_100 [--scenarios 1 2 3 4] [--checkout PATH] [--quick]
[--out FILE]`` runs, each scenario on servers of its own (started fresh, stopped after):

1. **cost per action**, one worker (``serve()``), one tab, one action at a time: on the step
   page (two moons, 300 points, stumps with 10 thresholds), on lesson 2's stage 3 and on
   Streamlit's floor (:mod:`benchmarks.step_floor_app`, the step page's elements with nothing
   computed, served alone by ``streamlit run``), a
   warm-up open, ``--opens`` page loads, then ``--steps`` Steps in series (a series ends when
   the run stops; the step page's Reset, or the lesson link reopened and a guess locked,
   begins the next one, not counted).  Per action: latency, the worker's CPU (its CPU clock,
   and /proc as :func:`~benchmarks._protocol_load.server_cpu` reads it) from the send to the
   next send, the idle server's CPU over that time taken off; payload bytes and ForwardMsgs;
   the first Step against the later ones;
2. **a class stepping**, ``--students`` on ``--workers`` workers behind nginx
   (``serve_class``): the students open the step page over ``--ramp`` s, then each clicks Step
   every ``--every`` s for ``--class-seconds`` s (a Step due on a stopped run clicks Reset
   first): Step p50/p95/max, errors, late clicks, server CPU per Step, students per worker;
3. **a class arriving**, ``--students`` opening the class link (lesson 2, stage 1, the class
   parts hidden) spread over ``--within`` s on ``--workers`` workers: page ready p50/p95/max
   (the open's latency: first HTTP request to the end of the first run), errors;
4. **one worker's capacity**, ``serve()``: for each N of ``--ns``, N students open the step
   page over ``--ramp`` s, then click Step every ``--every`` s for ``--worker-seconds`` s:
   Step p50/p95 per N and the first N whose p95 passes 1 s.

Scenarios 2 to 4 first open their page once on each worker, straight to it (a teacher
checking the link; ``--cold``: not).  ``--checkout PATH`` serves another source tree (e.g.
``git worktree add /tmp/before REV``) with that tree's own serving code, so that "before" and
"after" come from this one tool (:mod:`benchmarks._class_of_100_serve`).  ``--quick``: a few
tabs and seconds (the test).  The report (markdown; ``--out`` also writes it) names the
machine, the versions, the served commit, the date and each scenario's load average.
"""
from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import platform
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

from cbviz.app.streamlit_server import serve

from ._class_of_100_report import knee, markdown
from ._class_of_100_run import CLASS_LINK, FLOOR, LESSON, STEP_PAGE, costs, crowd, warm_up
from ._class_of_100_serve import REPO, served

FLOOR_APP = Path(__file__).with_name("step_floor_app.py")

__all__ = ["PRESETS", "Run", "knee", "main", "run"]

#: the settings of a full run and of ``--quick``; an option given on the command line wins
PRESETS = {
    "full": dict(opens=20, steps=30, idle=5.0, students=100, workers=2, every=3.0,
                 class_seconds=60.0, within=10.0, ramp=10.0, ns=[25, 50, 75, 100, 125, 150],
                 worker_seconds=45.0),
    "quick": dict(opens=3, steps=18, idle=1.0, students=6, workers=2, every=2.0,
                  class_seconds=6.0, within=2.0, ramp=2.0, ns=[3, 6], worker_seconds=6.0),
}


@dataclass
class Run:
    """A run's settings, what it served and each scenario's section (what
    :mod:`benchmarks._class_of_100_report` renders)."""

    tree: str
    settings: dict
    command: str = ""
    commit: str = ""
    machine: dict = field(default_factory=dict)
    started: datetime.datetime = field(
        default_factory=lambda: datetime.datetime.now().astimezone())
    minutes: float = 0.0
    sections: dict = field(default_factory=dict)

    def markdown(self):
        return markdown(self)


def commit_of(tree):
    """``tree``'s commit, and its uncommitted changes to tracked files, in words."""
    def git(*args):
        return subprocess.run(["git", "-C", str(tree), *args], capture_output=True,
                              text=True).stdout
    head = git("rev-parse", "--short", "HEAD").strip() or "(not a git checkout)"
    changed = git("status", "--porcelain", "--untracked-files=no").splitlines()
    if not changed:
        return f"`{head}` (no uncommitted change)"
    files = ", ".join(f"`{line[3:]}`" for line in changed[:12])
    return (f"`{head}` with uncommitted changes to {len(changed)} files: {files}"
            + (", ..." if len(changed) > 12 else ""))


def machine():
    """Cores, processor, Python, Streamlit and nginx of this machine."""
    model = next((line.split(":", 1)[1].strip()
                  for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "unknown processor")
    from cbviz.app.serve import NGINX
    try:
        nginx = subprocess.run([NGINX, "-v"], capture_output=True, text=True).stderr.strip()
        nginx = nginx.split(": ", 1)[-1]
    except OSError:
        nginx = "no nginx"
    return {"cores": os.cpu_count(), "cpu": model, "python": platform.python_version(),
            "streamlit": version("streamlit"), "nginx": nginx}


def scenario_1(tree, s, log):
    """Cost per action on one worker: the step page, the lesson, then Streamlit's floor (the
    step page's elements with nothing computed, :mod:`benchmarks.step_floor_app`)."""
    section = {"load": os.getloadavg(), "pages": []}

    def measure(server, pid, page):
        log(f"1: {page.name}: {s['opens']} opens after a warm-up, {s['steps']} Steps")
        section["pages"].append(asyncio.run(costs(
            server.url, pid, page, s["opens"], s["steps"], s["idle"], timeout=s["timeout"])))

    with served(tree) as server:
        (pid,) = server.workers.values()
        for page in (STEP_PAGE, LESSON):
            measure(server, pid, page)
    with serve(FLOOR_APP) as server:
        measure(server, server.pid, FLOOR)
    return section


def _crowd(tree, workers, page, s, within, duration):
    """A class on fresh servers (``workers`` 0: one worker alone): the :class:`Crowd`."""
    with served(tree, workers) as server:
        async def go():
            if s["warm"]:
                await warm_up(server.worker_urls, page, s["timeout"])
            return await crowd(server.url, server.pids, s["students"], page, within,
                               s["every"], duration, s["timeout"], s["seed"])
        return asyncio.run(go())


def scenario_2(tree, s, log):
    log(f"2: {s['students']} students on {s['workers']} workers, a Step every {s['every']:g} s "
        f"for {s['class_seconds']:g} s")
    section = {"load": os.getloadavg(), "settings": {**s, "duration": s["class_seconds"]},
               "link": STEP_PAGE.link}
    section["crowd"] = _crowd(tree, s["workers"], STEP_PAGE, s, s["ramp"], s["class_seconds"])
    return section


def scenario_3(tree, s, log):
    log(f"3: {s['students']} students open the class link within {s['within']:g} s on "
        f"{s['workers']} workers")
    section = {"load": os.getloadavg(), "settings": s, "link": CLASS_LINK.link}
    section["crowd"] = _crowd(tree, s["workers"], CLASS_LINK, s, s["within"], 0.0)
    return section


def scenario_4(tree, s, log):
    section = {"load": os.getloadavg(), "settings": {**s, "duration": s["worker_seconds"]},
               "crowds": [], "loads": {}}
    for n in s["ns"]:
        log(f"4: {n} students on one worker, a Step every {s['every']:g} s for "
            f"{s['worker_seconds']:g} s")
        section["loads"][n] = os.getloadavg()
        section["crowds"].append((n, _crowd(tree, 0, STEP_PAGE, {**s, "students": n},
                                            s["ramp"], s["worker_seconds"])))
    return section


SCENARIOS = {1: scenario_1, 2: scenario_2, 3: scenario_3, 4: scenario_4}


def run(scenarios=(1, 2, 3, 4), tree=REPO, log=print, command="", **settings):
    """Run ``scenarios`` on the app of source tree ``tree``: a :class:`Run`.  ``settings``: those
    of :data:`PRESETS` (``"full"`` unless given), ``timeout``, ``seed`` and ``warm``."""
    s = {**PRESETS["full"], "timeout": 180.0, "seed": 0, "warm": True, **settings}
    result = Run(str(Path(tree).resolve()), s, command, commit_of(tree), machine())
    t0 = time.perf_counter()
    for number in scenarios:
        result.sections[number] = SCENARIOS[number](tree, s, log)
    result.minutes = (time.perf_counter() - t0) / 60
    return result


def _parser():
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.class_of_100",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0] + "\n\n" + __doc__.split("\n\n", 1)[1])
    ap.add_argument("--scenarios", type=int, nargs="+", choices=sorted(SCENARIOS),
                    default=sorted(SCENARIOS))
    ap.add_argument("--checkout", metavar="PATH", default=str(REPO),
                    help="the source tree to serve (default: this checkout)")
    ap.add_argument("--quick", action="store_true", help="a few tabs and seconds (the test)")
    ap.add_argument("--out", metavar="FILE", help="also write the report to FILE")
    full = PRESETS["full"]
    for name, helps in [("opens", "1: page loads after the warm-up"),
                        ("steps", "1: Steps counted per page"),
                        ("idle", "1: seconds of the idle server measured"),
                        ("students", "2, 3: students"), ("workers", "2, 3: workers"),
                        ("every", "2, 4: seconds between a student's Steps"),
                        ("class_seconds", "2: seconds of Steps"),
                        ("within", "3: seconds over which the link is opened"),
                        ("ramp", "2, 4: seconds over which the page is opened"),
                        ("worker_seconds", "4: seconds of Steps per N")]:
        ap.add_argument(f"--{name.replace('_', '-')}", type=type(full[name]),
                        help=f"{helps} (default {full[name]:g})")
    ap.add_argument("--ns", type=int, nargs="+",
                    help=f"4: the numbers of students (default {' '.join(map(str, full['ns']))})")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds any wait may take")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first Steps' moments")
    ap.add_argument("--cold", action="store_true", help="2-4: no warm-up open per worker")
    return ap


def main(argv=None):
    args = _parser().parse_args(argv)
    preset = PRESETS["quick" if args.quick else "full"]
    settings = {k: preset[k] if getattr(args, k) is None else getattr(args, k) for k in preset}
    command = "python -m benchmarks.class_of_100 " + shlex.join(
        sys.argv[1:] if argv is None else argv)
    result = run(args.scenarios, args.checkout, command=command.strip(), timeout=args.timeout,
                 seed=args.seed, warm=not args.cold,
                 log=lambda text: print(f"  [{time.strftime('%H:%M:%S')}] {text}", flush=True),
                 **settings)
    text = result.markdown()
    print(text, flush=True)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return result


if __name__ == "__main__":
    main()
