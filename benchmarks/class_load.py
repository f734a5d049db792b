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
import collections
import datetime
import math
import multiprocessing
import os
import random
import re
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field

from .processes import machine_jiffies, rss_mb
from .protocol import Tab, TabClosed
from ._protocol_load import percentile, server_cpu
from ._protocol_receive import DONE

_TICK = os.sysconf("SC_CLK_TCK")

__all__ = ["ClassLoad", "DashboardTab", "StudentTab", "run_class", "main"]

#: the dashboard's live line: "**N** joined · **V** of N voted on stage k · ..."
COUNTS = re.compile(r"\*\*(\d+)\*\* joined · \*\*(\d+)\*\* of (\d+) voted on stage (\d+)")
GUESS, LOCK, NICKNAME, JOIN = "Your guess", "Lock in my guess", "Nickname (optional)", "Join"


class _Counting:
    """A tab that also counts every byte it receives and every run it sees end."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.bytes_in = self.runs = 0
        self.worker = None
        self._watches = []   # [(predicate, future)]

    def _receive(self, raw):
        self.bytes_in += len(raw)
        super()._receive(raw)
        if self._watches:
            now = time.perf_counter()
            for watch in list(self._watches):
                if watch[1].done() or watch[0](self):
                    self._watches.remove(watch)
                    if not watch[1].done():
                        watch[1].set_result(now)

    async def shows(self, predicate, timeout=None):
        """The perf_counter of the message after which ``predicate(tab)`` first held (checked
        as each message arrives, not when this coroutine gets to run: the time the page
        showed it); TimeoutError after ``timeout`` (default: the tab's) seconds."""
        if predicate(self):
            return time.perf_counter()
        future = asyncio.get_running_loop().create_future()
        self._watches.append((predicate, future))
        try:
            return await asyncio.wait_for(future, self.timeout if timeout is None else timeout)
        finally:
            if (predicate, future) in self._watches:
                self._watches.remove((predicate, future))

    def _on_script_finished(self, msg):
        if msg.script_finished in DONE:
            self.runs += 1
        super()._on_script_finished(msg)

    async def open(self, *args, **kwargs):
        """As :meth:`Tab.open`; ``worker``: the worker nginx sent the websocket to (the
        handshake's ``X-Cbviz-Worker``), or None."""
        self.worker = None
        try:
            return await super().open(*args, **kwargs)
        finally:
            response = getattr(self._ws, "response", None)
            if response is not None:
                self.worker = response.headers.get("x-cbviz-worker")


class StudentTab(_Counting, Tab):
    """A student's tab."""


class DashboardTab(_Counting, Tab):
    """The teacher's dashboard: every count its live line showed, with the time its message
    arrived (``counts``: ``(perf_counter, joined, voted)``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.counts = []
        self.line = ""   # the live line's last text

    def _on_delta(self, msg):
        super()._on_delta(msg)
        element = msg.delta.new_element if msg.delta.WhichOneof("type") == "new_element" \
            else None
        if element is not None and element.WhichOneof("type") == "markdown":
            m = COUNTS.search(element.markdown.body)
            if m:
                self.line = element.markdown.body
                self.counts.append((time.perf_counter(), int(m[1]), int(m[2])))

    @property
    def joined(self):
        return self.counts[-1][1] if self.counts else 0

    @property
    def voted(self):
        return self.counts[-1][2] if self.counts else 0

    def first_showing(self, n, which=2):
        """When the dashboard first showed at least ``n`` votes (``which=1``: joined); None."""
        return next((c[0] for c in self.counts if c[which] >= n), None)


@dataclass
class Student:
    """One simulated student: what it sent and what each step cost."""

    index: int
    tab: StudentTab
    choice: object
    offset: float = 0.0           # seconds into the vote window at which it locks
    open: object = None           # Action: the link's page load
    nickname_set: object = None   # Action: the nickname typed (a text input's rerun)
    join: object = None           # Action: the Join click
    joined: float | None = None   # perf_counter when the lesson showed the question
    join_bytes: int = 0
    lock: object = None           # Action: the lock's submit
    lock_bytes: int = 0
    locked: float | None = None   # perf_counter when the page showed the guess locked
    lost: bool = False            # the lock was sent but the page never showed it
    recovered: float | None = None  # then a plain rerun showed it, after these seconds
    worker: str | None = None
    problems: list = field(default_factory=list)

    @property
    def nickname(self):
        return f"S{self.index}"



@dataclass
class ClassLoad:
    """What a run measured (see the module's doc)."""

    students: list
    dashboard: DashboardTab
    workers: dict                       # address -> pid
    nginx_pid: int
    code: str = ""
    database: str = ""
    wall: dict = field(default_factory=dict)       # phase -> seconds
    phases: dict = field(default_factory=dict)     # phase -> (start, end), perf_counter
    cpu: dict = field(default_factory=dict)        # phase -> {"worker host:port" | "nginx": s}
    health: dict = field(default_factory=dict)     # target -> [(at, seconds | None)]
    store: list = field(default_factory=list)      # [(at, write s | None, read s | None)]
    votes: list = field(default_factory=list)      # the store's votes on stage 1
    connections: dict = field(default_factory=dict)  # worker -> established connections
    memory: dict = field(default_factory=dict)     # worker -> MB at the end
    idle_bytes: dict = field(default_factory=dict)  # "students"/"dashboard" -> bytes in idle
    vote_runs: int = 0                             # dashboard runs during the vote phase
    vote_dash_bytes: int = 0
    problems: list = field(default_factory=list)   # what went wrong outside the tabs
    lock_wait: float = 30.0
    clock: float = field(default_factory=lambda: time.time() - time.perf_counter())

    # --- derived ----------------------------------------------------------------------------

    def joined(self):
        return [s for s in self.students if s.joined is not None]

    def locked(self):
        return [s for s in self.students if s.locked is not None]

    def dashboard_latencies(self, which="vote"):
        """Per lock, in the order the students' pages showed them locked (``which="stored"``:
        per vote, in the order the store time-stamped them; ``"join"``: per join, in the
        order the students' pages showed the question): seconds until the dashboard first
        showed at least as many (0 when it already did); None where it never did."""
        if which == "vote":
            done = sorted(s.locked for s in self.locked())
            col = 2
        elif which == "stored":
            done = sorted(v.at.timestamp() - self.clock for v in self.votes if v.round == 1)
            col = 2
        else:
            done = sorted(s.joined for s in self.joined())
            col = 1
        out = []
        for rank, at in enumerate(done, start=1):
            seen = self.dashboard.first_showing(rank, col)
            out.append(None if seen is None else max(0.0, seen - at))
        return out

    def check_votes(self):
        """``(stored, right, problems)``: the votes in the store, the students with exactly
        one vote of the value they sent, and what does not match."""
        by_name = collections.defaultdict(list)
        for v in self.votes:
            by_name[v.nickname].append(v)
        problems, right = [], 0
        names = {s.nickname for s in self.students}
        for s in self.students:
            got = by_name.get(s.nickname, [])
            sent = s.lock is not None
            if not sent:
                if got:
                    problems.append(f"{s.nickname}: {len(got)} vote(s) stored, none sent")
                continue
            if len(got) != 1:
                problems.append(f"{s.nickname}: {len(got)} votes stored for 1 sent")
            elif not _same(got[0].value, s.choice) or got[0].round != 1:
                problems.append(f"{s.nickname}: stored {got[0].value!r} (round {got[0].round}),"
                                f" sent {s.choice!r}")
            else:
                right += 1
        for name in set(by_name) - names:
            problems.append(f"{len(by_name[name])} vote(s) of a student {name!r} never sent")
        return len(self.votes), right, problems

    def errors(self):
        out = [f"{s.nickname}: {e}" for s in self.students for e in s.tab.errors + s.problems]
        out += [f"dashboard: {e}" for e in self.dashboard.errors]
        out += [f"dashboard shows {e}" for e in self.dashboard.exceptions()]
        return out + self.problems

    # --- the report ---------------------------------------------------------------------------

    def report(self, title=""):
        out = [title] if title else []
        n = len(self.students)
        opens = [s.open for s in self.students if s.open is not None]
        out.append(_line("page load (student link)", [a.latency for a in opens if a.done],
                         len(opens), [a.bytes for a in opens if a.done]))
        joins = [s for s in self.students if s.join is not None]
        typed = [s.nickname_set for s in self.students if s.nickname_set is not None]
        out.append(_line("nickname typed (the text input's rerun)",
                         [a.latency for a in typed if a.done], len(typed),
                         [a.bytes for a in typed if a.done]))
        out.append(_line("join (Join click -> the question shown)",
                         [s.joined - s.join.sent for s in joins if s.joined is not None],
                         len(joins), [s.join_bytes for s in joins if s.joined is not None]))
        locks = [s for s in self.students if s.lock is not None]
        out.append(_line("lock (\"Lock in my guess\" -> the page shows the guess locked)",
                         [s.locked - s.lock.sent for s in locks if s.locked is not None],
                         len(locks), [s.lock_bytes for s in locks if s.locked is not None]))
        for which, what in (("vote", "a lock (the student's page shows it locked"),
                            ("stored", "a vote (the store's time stamp of it"),
                            ("join", "a join (the student's page shows the question")):
            lat = self.dashboard_latencies(which)
            seen = [x for x in lat if x is not None]
            out.append(f"dashboard update after {what} -> the dashboard shows >= that many):"
                       f" {_ms(seen)}; already shown "
                       f"{sum(x == 0 for x in seen)}, never shown "
                       f"{sum(x is None for x in lat)} of {len(lat)}")
        out.append(f"dashboard at the end: {self.dashboard.line!r}; {self.dashboard.runs} "
                   f"runs in all, {_kb(self.vote_dash_bytes / max(self.vote_runs, 1))} each "
                   f"in the vote phase ({self.vote_runs} runs in "
                   f"{self.wall.get('vote', math.nan):.0f} s)")
        stored, right, problems = self.check_votes()
        out.append(f"answers: {len(locks)} sent, {stored} stored; {right} of {n} students "
                   f"with exactly one vote of the value sent"
                   + "".join(f"\n  {p}" for p in problems[:10]))
        lost = [s for s in self.students if s.lost]
        back = [s.recovered for s in lost if s.recovered is not None]
        out.append(f"pages that showed the lock: {len(self.locked())} of {len(locks)}; never "
                   f"within {self.lock_wait:g} s: {len(lost)}"
                   + (f" (then one plain rerun of the page showed it on {len(back)}: "
                      f"{_ms(back)})" if lost else ""))
        errors = self.errors()
        out.append(f"errors: {len(errors)}" + "".join(f"\n  {e}" for e in errors[:10])
                   + (f"\n  ... {len(errors) - 10} more" if len(errors) > 10 else ""))
        out.append(self._cpu_report())
        idle = self.wall.get("idle")
        if idle:
            out.append(f"traffic while idle: {_kb(self.idle_bytes['students'] / max(n, 1) / idle)}"
                       f"/s per student (the pacing poll), "
                       f"{_kb(self.idle_bytes['dashboard'] / idle)}/s to the dashboard")
        for target, times in self.health.items():
            times = self.during(times)
            answered = [t for _, t in times if t is not None]
            out.append(f"health of {target}: {len(answered)} of {len(times)} answered within "
                       f"5 s; {_ms(answered)}; slowest per phase: {self._worst(times, 1)}")
        if self.store:
            store = self.during(self.store)
            writes = [w for _, w, _ in store if w is not None]
            reads = [r for _, _, r in store if r is not None]
            out.append(f"store probe ({self.database.split(':')[0]}, another process, every "
                       f"0.5 s): write {_ms(writes)}, slowest per phase: "
                       f"{self._worst(store, 1)}; read {_ms(reads)}; "
                       f"{sum(w is None for _, w, _ in store)} failed")
        split = collections.Counter(s.worker for s in self.students if s.worker)
        workers = sorted(self.workers)
        out.append("students per worker (websocket handshake's X-Cbviz-Worker): "
                   + ", ".join(f"{w} {split.get(w, 0)}" for w in workers)
                   + (f", unknown {n - sum(split.values())}" if n - sum(split.values()) else "")
                   + f"; dashboard on {self.dashboard.worker}")
        if self.connections:
            out.append("established connections to each worker's port during the idle phase "
                       "(/proc/net/tcp; students + dashboard + probes): "
                       + ", ".join(f"{w} {self.connections.get(w, 0)}" for w in workers))
        if self.memory:
            out.append("memory at the end: " + ", ".join(
                f"{w} {self.memory[w]:.0f} MB" for w in workers))
        return "\n".join(out)

    def during(self, times):
        """The probe's rows ``(at, ...)`` taken during the phases."""
        if not self.phases:
            return times
        start = min(a for a, _ in self.phases.values())
        end = max(b for _, b in self.phases.values())
        return [t for t in times if start <= t[0] <= end]

    def _worst(self, times, col):
        out = []
        for phase, (a, b) in self.phases.items():
            values = [t[col] for t in times if a <= t[0] <= b and t[col] is not None]
            out.append(f"{phase} {max(values, default=math.nan) * 1e3:.0f} ms")
        return ", ".join(out)

    def server_cpu(self, phase):
        """The server's CPU seconds (workers and nginx) in ``phase``."""
        return sum(v for k, v in self.cpu[phase].items() if k not in ("client", "machine"))

    def _cpu_report(self):
        lines = ["CPU (user + system, s) per phase: the server's processes; this client (the "
                 "tabs); the whole machine, and what other processes took of it (the probes, "
                 "a PostgreSQL server, other work on the machine):"]
        names = [*sorted(self.workers), "nginx"]
        for phase, used in self.cpu.items():
            wall = self.wall[phase]
            total = self.server_cpu(phase)
            lines.append(f"  {phase:5s} {wall:5.1f} s: " + ", ".join(
                f"{name} {used[name]:.1f}" for name in names)
                + f"; server {total:.1f} ({total / max(wall, 1e-9):.0%} of a core); client "
                  f"{used['client']:.1f}; machine {used['machine']:.1f} "
                  f"({used['machine'] / max(wall, 1e-9):.2f} of {os.cpu_count()} cores busy; "
                  f"other processes {used['machine'] - total - used['client']:.1f})")
        actions = {"join": len(self.joined()), "vote": len(self.locked())}
        idle_rate = (self.server_cpu("idle") / self.wall["idle"]
                     if self.wall.get("idle") else None)
        for phase, count in actions.items():
            if phase not in self.cpu or not count:
                continue
            total = self.server_cpu(phase)
            line = (f"  per {'join' if phase == 'join' else 'lock'}: "
                    f"{total / count * 1e3:.0f} ms of server CPU (the phase's CPU / {count})")
            if idle_rate is not None:
                extra = total - idle_rate * self.wall[phase]
                line += (f"; {extra / count * 1e3:.0f} ms over the idle class's "
                         f"{idle_rate:.2f} core")
            lines.append(line)
        return "\n".join(lines)


def _same(stored, sent):
    if isinstance(sent, (int, float)) and not isinstance(sent, bool):
        return isinstance(stored, (int, float)) and abs(float(stored) - sent) < 1e-9
    return stored == sent


def _ms(seconds):
    ms = [x * 1e3 for x in seconds]
    return (f"p50 {percentile(ms, 50):.0f} ms, p95 {percentile(ms, 95):.0f} ms, max "
            f"{max(ms, default=math.nan):.0f} ms (n={len(ms)})")


def _kb(n):
    return f"{n / 1e3:.1f} kB"


def _line(name, seconds, total, sizes):
    return (f"{name}: {len(seconds)} of {total} finished; {_ms(seconds)}; "
            f"{_kb(sum(sizes) / len(sizes)) if sizes else 'nan kB'} received each")


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


def established(port):
    """Established TCP connections whose local port is ``port`` (/proc/net/tcp and tcp6)."""
    count = 0
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "01":
                        count += 1
        except OSError:
            continue
    return count


# --- the class ------------------------------------------------------------------------------

def choices_of(lesson):
    """Three answers of stage 1 of ``lesson`` to spread over the students (``i % 3``)."""
    from cbviz.lessons import LESSONS
    q = LESSONS[lesson - 1].stage(1).question
    if not q.numeric:
        return list(q.choices)[:3]
    mid = q.low + round((q.high - q.low) / 2 / q.step) * q.step
    cast = int if float(q.step).is_integer() else float
    return [cast(q.low), cast(mid), cast(q.high)]


async def _student(s, code, start, phase, vote_start, lock_wait):
    """One student: open the link, nickname, Join, wait for the question; then, once the
    vote phase starts, pick and lock at its moment.  A page that has not shown the lock
    within ``lock_wait`` seconds is reported and rerun once (as a student pressing R)."""
    tab = s.tab
    await asyncio.sleep(max(0.0, start - time.perf_counter()))
    try:
        s.open = await tab.open("lessons", f"join={code}")
        s.worker = tab.worker
        s.nickname_set = await tab.set(NICKNAME, s.nickname)
        before = tab.bytes_in
        s.join = await tab.click(JOIN, wait=False)
        s.joined = await tab.shows(_asks)
        s.join_bytes = tab.bytes_in - before
    except Exception as exc:   # noqa: BLE001 - this student stops here, reported
        s.problems.append(f"join: {exc!r}"[:300])
        return
    finally:
        phase["joined"] += 1
        if phase["joined"] == phase["students"]:
            phase["all_joined"].set()
    await phase["vote"].wait()
    await asyncio.sleep(max(0.0, vote_start[0] + s.offset - time.perf_counter()))
    try:
        await tab.set(GUESS, s.choice)   # in the form: held until the submit
        before = tab.bytes_in
        s.lock = await tab.submit(LOCK, wait=False)
    except Exception as exc:   # noqa: BLE001 - reported
        s.problems.append(f"lock: {exc!r}"[:300])
        return
    finally:
        phase["sent"] += 1
        if phase["sent"] == phase["joined"]:
            phase["all_sent"].set()
    locked = lambda t: _says_locked(t, s.choice)   # noqa: E731
    try:
        s.locked = await tab.shows(locked, lock_wait)
        s.lock_bytes = tab.bytes_in - before
    except TimeoutError:
        shown = [w.label for w in tab.widgets() if w.label in (GUESS, LOCK)] + [
            t for t in tab.texts() if "guess" in t.lower()]
        s.problems.append(f"lock: the page did not show the guess locked within "
                          f"{lock_wait:g} s; it shows {shown}"[:400])
        s.lost = True
        try:   # the page again, as a student pressing R: a full run with no trigger
            tab._rerun(tab._act("rerun", "page"))
            s.recovered = await tab.shows(locked, lock_wait) - tab.actions[-1].sent
        except Exception:   # noqa: BLE001 - not recovered
            pass
    except Exception as exc:   # noqa: BLE001 - reported
        s.problems.append(f"lock: {exc!r}"[:300])


def _asks(tab):
    """Whether the page asks the stage's question (the joined student's lesson)."""
    return any(w.label == GUESS for w in tab.widgets())


def _says_locked(tab, choice):
    """Whether the page says the guess ``choice`` is locked ("Your guess: ...")."""
    m = tab.search(r"^Your guess: (.+)$")
    if m is None:
        return False
    try:
        return _same(float(m[1]) if isinstance(choice, (int, float)) else m[1].strip(), choice)
    except ValueError:
        return False


def _cpu(pids):
    """CPU seconds so far of each server process (and its descendants), of this process
    (``"client"``) and of the whole machine (``"machine"``: every core's busy time)."""
    out = {name: server_cpu(pid) for name, pid in pids.items()}
    me = os.times()
    out["client"] = me.user + me.system
    out["machine"] = machine_jiffies()[0] / _TICK
    return out


def _minus(after, before):
    return {k: after[k] - before[k] for k in after}


async def warm_up(urls, code, timeout):
    """One student of the class ``code`` (another than the measured one) on each worker at
    ``urls``, straight to the worker: its pages imported and the lesson's data and voters in
    its cache, as on a server that has served a lesson before.  The seconds each took."""
    async def one(url):
        tab = StudentTab(url, timeout=timeout)
        try:
            t0 = time.perf_counter()
            await tab.open("lessons", f"join={code}")
            await tab.click(JOIN, wait=False)
            await tab.shows(_asks)
            return time.perf_counter() - t0
        finally:
            await tab.close()
    return await asyncio.gather(*(one(u) for u in urls))


async def _drive(result, url, code, key, ramp, window, idle, timeout, lock_wait, log, warm):
    """The three phases on a running class (``result`` filled in)."""
    students, dash = result.students, result.dashboard
    pids = {**result.workers, "nginx": result.nginx_pid}
    if warm:
        took = await warm_up(warm[1], warm[0], timeout)
        log("warm-up (a student of another class on each worker): "
            + ", ".join(f"{t:.1f} s" for t in took))
    log(f"dashboard: opening /class?class={code}&key=...")
    await dash.open("class", f"class={code}&key={key}")
    await dash.wait_for(lambda d: d.counts, timeout)
    phase = {"joined": 0, "students": len(students), "all_joined": asyncio.Event(),
             "vote": asyncio.Event(), "sent": 0, "all_sent": asyncio.Event()}
    vote_start = [0.0]
    cpu, t0 = _cpu(pids), time.perf_counter()
    tasks = [asyncio.create_task(_student(s, code, t0 + ramp * i / max(len(students) - 1, 1),
                                          phase, vote_start, lock_wait))
             for i, s in enumerate(students)]
    await phase["all_joined"].wait()
    n_joined = len(result.joined())
    try:   # the dashboard catches up with the joins
        await dash.wait_for(lambda d: d.joined >= n_joined, timeout)
    except (TimeoutError, TabClosed) as exc:
        result.problems.append(f"the dashboard never showed {n_joined} joined: {exc}")
    result.phases["join"] = (t0, time.perf_counter())
    result.wall["join"] = time.perf_counter() - t0
    cpu1 = _cpu(pids)
    result.cpu["join"] = _minus(cpu1, cpu)
    log(f"join: {n_joined} of {len(students)} joined in {result.wall['join']:.1f} s")
    if idle:
        b_students = sum(s.tab.bytes_in for s in students)
        b_dash = dash.bytes_in
        t1 = time.perf_counter()
        await asyncio.sleep(idle / 2)
        result.connections = {w: established(int(w.rsplit(":", 1)[1])) for w in result.workers}
        await asyncio.sleep(idle / 2)
        result.phases["idle"] = (t1, time.perf_counter())
        result.wall["idle"] = time.perf_counter() - t1
        cpu2 = _cpu(pids)
        result.cpu["idle"] = _minus(cpu2, cpu1)
        cpu1 = cpu2
        result.idle_bytes = {"students": sum(s.tab.bytes_in for s in students) - b_students,
                             "dashboard": dash.bytes_in - b_dash}
        log(f"idle: {result.wall['idle']:.1f} s")
    runs0, bytes0 = dash.runs, dash.bytes_in
    vote_start[0] = t2 = time.perf_counter()
    phase["joined"] = len(result.joined())   # those who will lock
    if phase["joined"]:
        phase["vote"].set()
        await phase["all_sent"].wait()
    n_sent = sum(s.lock is not None for s in students)
    try:   # the phase ends when the dashboard shows every vote sent
        await dash.wait_for(lambda d: d.voted >= n_sent, timeout)
    except (TimeoutError, TabClosed) as exc:
        result.problems.append(f"the dashboard never showed {n_sent} votes: {exc!r}")
    result.phases["vote"] = (t2, time.perf_counter())
    result.wall["vote"] = time.perf_counter() - t2
    result.cpu["vote"] = _minus(_cpu(pids), cpu1)
    result.vote_runs = dash.runs - runs0
    result.vote_dash_bytes = dash.bytes_in - bytes0
    log(f"vote: {n_sent} locks sent, the dashboard showed them all after "
        f"{result.wall['vote']:.1f} s")
    await asyncio.gather(*tasks)   # the pages that show their lock late, or never
    lost = [s for s in students if s.lost]
    if lost:
        log(f"{len(lost)} page(s) did not show their lock within {lock_wait:g} s")


def run_class(students=100, workers=2, lesson=4, database=None, ramp=5.0, window=20.0,
              idle=5.0, timeout=180.0, seed=0, health=True, warm=True, lock_wait=30.0,
              log=print):
    """Serve a class on ``workers`` workers and drive it (see the module's doc): a
    :class:`ClassLoad`.  ``warm``: first join a class of the same lesson on each worker
    (:func:`warm_up`), as a server that has served the lesson before."""
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
            asyncio.run(_main(result, cls.url, pacing.code, key, ramp, window, idle, timeout,
                              lock_wait, log, warming))
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


async def _main(result, url, code, key, ramp, window, idle, timeout, lock_wait, log, warm):
    try:
        await _drive(result, url, code, key, ramp, window, idle, timeout, lock_wait, log, warm)
    finally:
        tabs = [s.tab for s in result.students] + [result.dashboard]
        await asyncio.gather(*(t.close() for t in tabs), return_exceptions=True)


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
