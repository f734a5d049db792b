"""The tabs of a run of :mod:`benchmarks.class_load` and the phases that drive them: a student's
tab and the teacher's dashboard (protocol-level, counting bytes and runs), one student's join
and lock, the warm-up, and the three phases with each one's CPU.  Private to
:mod:`benchmarks.class_load`.
"""
from __future__ import annotations

import asyncio
import os
import re
import time
from dataclasses import dataclass, field

from .processes import machine_jiffies
from .protocol import Tab, TabClosed
from ._protocol_load import server_cpu
from ._protocol_receive import DONE

_TICK = os.sysconf("SC_CLK_TCK")

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


def same(stored, sent):
    """Whether the store's value ``stored`` is the answer ``sent`` (numbers: within 1e-9)."""
    if isinstance(sent, (int, float)) and not isinstance(sent, bool):
        return isinstance(stored, (int, float)) and abs(float(stored) - sent) < 1e-9
    return stored == sent


class _Tally:
    """Students past a step: ``done`` is set when ``count`` reaches ``expected``."""

    def __init__(self, expected=0):
        self.count, self.expected, self.done = 0, expected, asyncio.Event()

    def add(self):
        self.count += 1
        if self.count == self.expected:
            self.done.set()


@dataclass
class _Phases:
    """What the phases and the students' tasks share: who is past the join and who past the
    lock's send (done or failed), and the start of the vote phase."""

    joins: _Tally
    locks: _Tally = field(default_factory=_Tally)
    vote: asyncio.Event = field(default_factory=asyncio.Event)
    vote_start: float = 0.0   # perf_counter


async def _step(s, what, tally, coro):
    """``coro``'s result, or None with its failure in ``s.problems``; counted in ``tally``."""
    try:
        return await coro
    except Exception as exc:   # noqa: BLE001 - this student stops here, reported
        s.problems.append(f"{what}: {exc!r}"[:300])
        return None
    finally:
        tally.add()


async def _join(s, code):
    tab = s.tab
    s.open = await tab.open("lessons", f"join={code}")
    s.worker = tab.worker
    s.nickname_set = await tab.set(NICKNAME, s.nickname)
    before = tab.bytes_in
    s.join = await tab.click(JOIN, wait=False)
    s.joined = await tab.shows(_asks)
    s.join_bytes = tab.bytes_in - before
    return True


async def _send_lock(s):
    """Pick and lock: the bytes received before the submit."""
    await s.tab.set(GUESS, s.choice)   # in the form: held until the submit
    before = s.tab.bytes_in
    s.lock = await s.tab.submit(LOCK, wait=False)
    return before


async def _student(s, code, start, phases, lock_wait):
    """One student: open the link, nickname, Join, wait for the question; then, once the
    vote phase starts, pick and lock at its moment.  A page that has not shown the lock
    within ``lock_wait`` seconds is reported and rerun once (as a student pressing R)."""
    tab = s.tab
    await asyncio.sleep(max(0.0, start - time.perf_counter()))
    if not await _step(s, "join", phases.joins, _join(s, code)):
        return
    await phases.vote.wait()
    await asyncio.sleep(max(0.0, phases.vote_start + s.offset - time.perf_counter()))
    before = await _step(s, "lock", phases.locks, _send_lock(s))
    if before is None:
        return
    locked = lambda t: _says_locked(t, s.choice)   # noqa: E731
    try:
        s.locked = await tab.shows(locked, lock_wait)
        s.lock_bytes = tab.bytes_in - before
    except TimeoutError:
        shown = [w.label for w in tab.widgets()
                 if w.label.startswith(GUESS) or w.label == LOCK] + [
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
    return any(w.label.startswith(GUESS + ": ") for w in tab.widgets())  # "...: question"


def _says_locked(tab, choice):
    """Whether the page's status line says the guess ``choice`` is locked ("Your guess: X
    (locked).", or with its verdict once revealed)."""
    m = tab.search(r"^Your guess: (.+?)(?: \(locked\)|\. Right|\. Not this time)\.$")
    if m is None:
        return False
    try:
        return same(float(m[1]) if isinstance(choice, (int, float)) else m[1].strip(), choice)
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


async def drive(result, code, key, ramp, idle, timeout, lock_wait, log, warm):
    """The three phases on a running class (``result``, a :class:`ClassLoad`, filled in),
    then every tab closed.  ``warm``: ``(code, worker urls)`` of the warm-up, or None."""
    try:
        await _phases(result, code, key, ramp, idle, timeout, lock_wait, log, warm)
    finally:
        tabs = [s.tab for s in result.students] + [result.dashboard]
        await asyncio.gather(*(t.close() for t in tabs), return_exceptions=True)


async def _phases(result, code, key, ramp, idle, timeout, lock_wait, log, warm):
    students, dash = result.students, result.dashboard
    pids = {**result.workers, "nginx": result.nginx_pid}
    if warm:
        took = await warm_up(warm[1], warm[0], timeout)
        log("warm-up (a student of another class on each worker): "
            + ", ".join(f"{t:.1f} s" for t in took))
    log(f"dashboard: opening /class?class={code}&key=...")
    await dash.open("class", f"class={code}&key={key}")
    await dash.wait_for(lambda d: d.counts, timeout)
    phases = _Phases(_Tally(len(students)))
    cpu, t0 = _cpu(pids), time.perf_counter()
    tasks = [asyncio.create_task(_student(s, code, t0 + ramp * i / max(len(students) - 1, 1),
                                          phases, lock_wait))
             for i, s in enumerate(students)]
    await phases.joins.done.wait()
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
    phases.vote_start = t2 = time.perf_counter()
    phases.locks.expected = len(result.joined())   # those who will lock
    if phases.locks.expected:
        phases.vote.set()
        await phases.locks.done.wait()
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

