"""A live class under load (issue #28): a teacher's dashboard and N students on workers behind
nginx, every student joining from the class link and locking a guess on stage 1.

``python -m benchmarks.class_load --students 100 --workers 2 [--lesson 4] [--database WHERE]
[--ramp 5 | --at-once] [--window 20] [--idle 5]`` starts :func:`cbviz.app.serve.serve_class`
on a class store (a SQLite file in a temporary folder unless ``--database`` names a file or a
``postgresql://`` URL), creates a class there (free pacing) and drives, in this process,
protocol-level tabs (:class:`benchmarks.protocol.Tab`: Streamlit's websocket protocol, the
fragments' ``run_every`` timers included) through nginx:

0. **warm-up** (unless ``--cold``): one student of another class of the lesson joins on each
   worker, straight to it (pages imported, the lesson's data and voters cached, as on a
   server that has served the lesson before);
1. **join**: the teacher's dashboard opens from the teacher link; then the students open the
   student link (``/lessons?join=CODE``), spread evenly over ``--ramp`` seconds (``--at-once``:
   all together), type the nickname ``S{i}`` and click Join; a join ends when the lesson shows
   its question ("Your guess");
2. **idle** (``--idle`` s): everybody only watches: the students' pacing polls (every 2 s) and
   the dashboard's refresh (every 1 s): the CPU a class costs doing nothing;
3. **vote**: each student picks an answer of stage 1 (choice ``i % 3``) and clicks "Lock in my
   guess" at a random moment of a ``--window``-second window (seeded); the phase ends when
   the dashboard shows every vote sent.  A page that has not shown its lock within
   ``--lock-wait`` seconds is reported, then rerun once (a full run, as a student pressing R)
   to tell a page that missed its run's messages from a vote the server did not take.

Measured: page-load, join and lock latencies, each until the page shows its outcome (the
question; the guess locked), read as each message arrives; the dashboard's update latency
(for the r-th lock, from the moment its student's page showed it locked, and for the r-th
vote from the store's time stamp of it, to the first dashboard message showing at least r
votes; 0 when the dashboard already showed them); votes sent and stored (read back from the
store: one per student, the value sent); errors; each worker's
and nginx's CPU (``/proc``: user + system) per phase and per action; bytes received per
action; the health endpoint of nginx and of each worker, asked every 0.5 s from processes of
their own; a store probe (another process, on a class of its own: a small write and a read
every 0.5 s, i.e. what any writer waits for the database's write lock); and how the students
split between the workers (the ``X-Cbviz-Worker`` header nginx puts on each websocket's
handshake, checked against the established connections of each worker's port in
``/proc/net/tcp``).

The tabs run in this process, on the same machine as the server: the client's CPU and the
whole machine's busy time are printed per phase, as both take CPU from the workers.  Page
load and nickname latencies are the protocol client's (:class:`~benchmarks.protocol.Action`:
from the send to the run's end).  The tabs do not keep
nginx's routing cookie between their requests (only the websocket's route counts: a session
lives on the worker its websocket reached, drawn by the same consistent hash as a browser's
random cookie).
"""
from __future__ import annotations

import argparse
import asyncio
import datetime
import multiprocessing
import os
import random
import tempfile
import time
from contextlib import ExitStack

from .processes import rss_mb
from ._class_load_report import ClassLoad
from ._class_load_run import DashboardTab, Student, StudentTab, drive

__all__ = ["ClassLoad", "DashboardTab", "StudentTab", "run_class", "main"]


def choices_of(lesson):
    """Three answers of stage 1 of ``lesson`` to spread over the students (``i % 3``)."""
    from cbviz.lessons import LESSONS
    q = LESSONS[lesson - 1].stage(1).question
    if not q.numeric:
        return list(q.choices)[:3]
    mid = q.low + round((q.high - q.low) / 2 / q.step) * q.step
    cast = int if float(q.step).is_integer() else float
    return [cast(q.low), cast(mid), cast(q.high)]


# --- probes in processes of their own -------------------------------------------------------
# (in this process they would wait behind the tabs' event loop and measure it, not the server;
# their times are time.perf_counter(), CLOCK_MONOTONIC, the same clock in every process)

def _health_probe(url, stop, out):
    """Ask ``url``'s health endpoint every 0.5 s: ``(at, seconds | None)`` (None: no answer
    within 5 s)."""
    import urllib.request
    times = []
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=5) as r:
                r.read()
            times.append((t0, time.perf_counter() - t0))
        except OSError:
            times.append((t0, None))
        stop.wait(0.5)
    out.send(times)


def _store_probe(where, stop, out):
    """Every 0.5 s: a small write (a student of a class of the probe's own, seen now) and a
    read (that class's pacing), timed: ``(at, write s | None, read s | None)``: what any
    writer waits for the database's write lock, and a reader beside it."""
    from cbviz.classroom import open_database
    db = open_database(where)
    pacing, _ = db.create_class(1)
    _, token = db.join(pacing.code, "probe")
    times = []
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            db.student(pacing.code, token)
            t1 = time.perf_counter()
            db.pacing(pacing.code)
            times.append((t0, t1 - t0, time.perf_counter() - t1))
        except Exception:   # noqa: BLE001 - a failed round is what the probe reports
            times.append((t0, None, None))
        stop.wait(0.5)
    out.send(times)


class Probe:
    """``target(*args, stop, send)`` in a process of its own; ``times``: what it sent back."""

    def __init__(self, target, *args):
        ctx = multiprocessing.get_context("spawn")
        self._stop, (self._receive, send) = ctx.Event(), ctx.Pipe(duplex=False)
        self._process = ctx.Process(target=target, args=(*args, self._stop, send), daemon=True)
        self.times = []

    def start(self):
        self._process.start()
        return self

    def stop(self):
        self._stop.set()
        self.times = self._receive.recv() if self._receive.poll(30) else []
        self._process.join(10)


def run_class(students=100, workers=2, lesson=4, database=None, ramp=5.0, window=20.0,
              idle=5.0, timeout=180.0, seed=0, health=True, warm=True, lock_wait=30.0,
              log=print):
    """Serve a class on ``workers`` workers and drive it (see the module's doc): a
    :class:`ClassLoad`.  ``warm``: first join a class of the same lesson on each worker
    (:func:`~benchmarks._class_load_run.warm_up`), as a server that has served the lesson
    before."""
    from cbviz.app.serve import serve_class
    from cbviz.classroom import open_database

    rng = random.Random(seed)
    answers = choices_of(lesson)
    with ExitStack() as stack:
        if database is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="cbviz-class-"))
            database = os.path.join(folder, "classes.sqlite3")
        db = open_database(database)
        log(f"starting {workers} worker(s) behind nginx on {database.split('@')[-1]}")
        cls = stack.enter_context(serve_class(workers, database=database))
        log("workers: " + ", ".join(f"{w.address} (pid {w.pid})" for w in cls.workers)
            + f"; nginx pid {cls.nginx.pid}")
        pacing, key = db.create_class(lesson, mode="free")
        warming = (db.create_class(lesson)[0].code, [w.url for w in cls.workers]) if warm \
            else None
        result = ClassLoad(
            [Student(i, StudentTab(cls.url, timeout=timeout), answers[i % len(answers)],
                     offset=rng.uniform(0, window)) for i in range(students)],
            DashboardTab(cls.url, timeout=timeout),
            {w.address: w.pid for w in cls.workers}, cls.nginx.pid, code=pacing.code,
            database=database if "://" in database else "sqlite", lock_wait=lock_wait)
        probes = {}
        if health:
            for name, url in [("nginx", cls.url), *((w.address, w.url) for w in cls.workers)]:
                probes[name] = Probe(_health_probe, url).start()
            store = Probe(_store_probe, database).start()
        try:
            asyncio.run(drive(result, pacing.code, key, ramp, idle, timeout, lock_wait, log,
                              warming))
        finally:
            for name, probe in probes.items():
                probe.stop()
                result.health[name] = probe.times
            if health:
                store.stop()
                result.store = store.times
        result.memory = {w.address: rss_mb(w.pid) for w in cls.workers}
        result.votes = db.votes(pacing.code, key, 1)
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.class_load",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0] + "\n\n" + __doc__.split("\n\n", 1)[1])
    ap.add_argument("--students", type=int, default=100)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--lesson", type=int, default=4, help="the class's lesson (stage 1 voted)")
    ap.add_argument("--database", metavar="WHERE",
                    help="a SQLite file or a postgresql:// URL (default: a temporary SQLite "
                         "file)")
    ap.add_argument("--ramp", type=float, default=5.0,
                    help="seconds over which the students open the link")
    ap.add_argument("--at-once", action="store_true", help="every student opens at once")
    ap.add_argument("--window", type=float, default=20.0,
                    help="seconds within which each student locks, at a random moment")
    ap.add_argument("--idle", type=float, default=5.0,
                    help="seconds of a class only watching, between the joins and the votes")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds any wait may take")
    ap.add_argument("--lock-wait", type=float, default=30.0,
                    help="seconds a page may take to show its lock before it is reported "
                         "(and rerun once)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the lock moments")
    ap.add_argument("--cold", action="store_true",
                    help="no warm-up: the students are the workers' first visitors")
    args = ap.parse_args(argv)
    ramp = 0.0 if args.at_once else args.ramp
    started = datetime.datetime.now().astimezone()
    load1 = os.getloadavg()
    result = run_class(args.students, args.workers, args.lesson, args.database, ramp,
                       args.window, args.idle, args.timeout, args.seed, warm=not args.cold,
                       lock_wait=args.lock_wait,
                       log=lambda text: print(f"  [{time.strftime('%H:%M:%S')}] {text}",
                                              flush=True))
    title = (f"{args.students} students, {args.workers} worker(s) behind nginx, lesson "
             f"{args.lesson} stage 1, class {result.code}, store {result.database}; joins "
             f"{'at once' if not ramp else f'over {ramp:g} s'}, locks within "
             f"{args.window:g} s; {'cold workers' if args.cold else 'warmed workers'}; "
             f"{os.cpu_count()} cores, load average "
             f"{' '.join(f'{x:.2f}' for x in load1)} at the start "
             f"({started:%Y-%m-%d %H:%M %Z})")
    print(result.report(title), flush=True)
    return result


if __name__ == "__main__":
    main()
