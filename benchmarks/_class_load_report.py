"""What a run of :mod:`benchmarks.class_load` measured (:class:`ClassLoad`) and its report.
Private to :mod:`benchmarks.class_load`.
"""
from __future__ import annotations

import collections
import math
import os
import time
from dataclasses import dataclass, field

from ._class_load_run import DashboardTab, same
from ._protocol_load import percentile


@dataclass
class ClassLoad:
    """What a run measured (see :mod:`benchmarks.class_load`)."""

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
            elif not same(got[0].value, s.choice) or got[0].round != 1:
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


def _ms(seconds):
    ms = [x * 1e3 for x in seconds]
    return (f"p50 {percentile(ms, 50):.0f} ms, p95 {percentile(ms, 95):.0f} ms, max "
            f"{max(ms, default=math.nan):.0f} ms (n={len(ms)})")


def _kb(n):
    return f"{n / 1e3:.1f} kB"


def _line(name, seconds, total, sizes):
    return (f"{name}: {len(seconds)} of {total} finished; {_ms(seconds)}; "
            f"{_kb(sum(sizes) / len(sizes)) if sizes else 'nan kB'} received each")
