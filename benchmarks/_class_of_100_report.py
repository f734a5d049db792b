"""The markdown report of a run of :mod:`benchmarks.class_of_100`: the machine and the served
code, then a section per scenario.  Private to :mod:`benchmarks.class_of_100`.
"""
from __future__ import annotations

import math
import statistics

from ._class_of_100_run import FLOOR
from ._protocol_load import percentile

KNEE = 1.0   # s: scenario 4 looks for the first number of students whose Step p95 passes it


def table(header, rows):
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]


def _median(values):
    return statistics.median(values) if values else math.nan


def _mean(values):
    return statistics.fmean(values) if values else math.nan


def spread(seconds, scale=1e3, digits=0):
    """``p50 / p95 / max`` of ``seconds`` in ms (``scale=1``: in s)."""
    v = [x * scale for x in seconds]
    return " / ".join(f"{x:.{digits}f}" for x in (percentile(v, 50), percentile(v, 95),
                                                    max(v, default=math.nan)))


def _errors(errors, indent=""):
    return [f"{indent}- error: {e}" for e in errors[:5]] + (
        [f"{indent}- ... {len(errors) - 5} more errors"] if len(errors) > 5 else [])


def markdown(run):
    """The whole report of ``run`` (a :class:`benchmarks.class_of_100.Run`)."""
    out = ["# A class of 100 on one machine: `python -m benchmarks.class_of_100`", "",
           f"- **Command**: `{run.command}`",
           f"- **Date**: {run.started:%Y-%m-%d %H:%M %Z}, {run.minutes:.0f} min",
           f"- **Machine**: {run.machine['cores']} cores ({run.machine['cpu']}), Python "
           f"{run.machine['python']}, Streamlit {run.machine['streamlit']}, "
           f"{run.machine['nginx']}",
           f"- **Served code**: `{run.tree}` at {run.commit}",
           "- **Client**: the tabs are protocol-level (`benchmarks.protocol.Tab`), all in "
           "this process on the same machine: its CPU is shown beside the server's.", ""]
    for number, section in run.sections.items():
        out += SECTIONS[number](section) + [""]
    return "\n".join(out)


def _start(section):
    return (f"Load average at the start: "
            f"{' '.join(f'{x:.2f}' for x in section['load'])} (1, 5, 15 min).")


def _costs(section):
    out = ["## 1. Cost per action on one worker (one tab, one action at a time)", "",
           _start(section), ""]
    rows = []
    for c in section["pages"]:
        groups = [("page load, the worker's first (the warm-up)", [c.warm]),
                  (f"page load ({len(c.opens)} after the warm-up)", c.opens),
                  ("Step, all", c.steps),
                  ("Step: the page's first on this worker", c.steps[:1]),
                  ("Step: first of each later series",
                   [c.steps[i] for i in c.firsts[1:]]),
                  ("Step: the others", [m for i, m in enumerate(c.steps) if i not in c.firsts])]
        for what, measured in groups:
            if not measured:   # Streamlit's floor: its run never stops, one series
                continue
            done = [m for m in measured if m.action.done]
            lat = [m.action.latency for m in done]
            cpu = [c.net(m) * 1e3 for m in done]
            proc = [c.net(m, proc=True) * 1e3 for m in done]
            kb = [m.action.bytes / 1e3 for m in done]
            rows.append([f"{c.page.name}: {what}", f"{len(done)} of {len(measured)}",
                         f"{percentile(lat, 50) * 1e3:.0f} / {percentile(lat, 95) * 1e3:.0f}",
                         f"{_median(cpu):.1f} / {_mean(cpu):.1f}", f"{_mean(proc):.1f}",
                         f"{_median(kb):.1f} / {_mean(kb):.1f}",
                         f"{_median([m.action.messages for m in done]):.0f}"])
    out += table(["page: action", "finished", "latency p50 / p95 (ms)",
                  "server CPU median / mean (ms)", "CPU mean from /proc (ms)",
                  "payload median / mean (kB)", "ForwardMsgs (median)"], rows)
    out.append("")
    for c in section["pages"]:
        out.append(f"- {c.page.name} (`{c.page.link}`): the idle server (the warm-up's tab "
                   f"and this one open, nothing clicked) used {c.idle_rate * 1e3:.1f} ms of CPU per second, taken "
                   f"off each action's CPU over its time (send to next send); "
                   f"{len(c.firsts)} series of Steps, {c.uncounted} uncounted actions began "
                   "them (" + ("the link reopened and a guess locked" if c.page.lesson
                               else "Reset") + f"); errors {len(c.errors())}")
        out += _errors(c.errors(), "  ")
    if any(c.page == FLOOR for c in section["pages"]):
        out.append("- Streamlit's floor: `benchmarks/step_floor_app.py`, served alone by "
                   "`streamlit run` with the app's configuration: the step page's widgets, "
                   "texts and two live charts (fixed figures, sent by name after the first "
                   "draw), nothing computed; its Step costs what Streamlit itself does for a "
                   "page like the step page, under any work of cbviz's.")
    out.append("- Server CPU: the worker process's CPU clock (all threads, ns), from an "
               "action's send to the next one's (a 0.2 s pause after each run); the /proc "
               "column is the same span from `/proc/PID/stat` (10 ms ticks: its per-action "
               "values are coarse, its mean is not).  The warm-up's tab stays open through "
               "the page loads, as a class's other students do: Streamlit drops the page "
               "scripts it compiled when its last tab closes, and a lone tab reopening a page "
               "would pay their compile at each load.")
    return out


def _crowd_row(crowd):
    """Steps finished / sent, p50/p95/max, late, errors, server CPU per Step, kB per Step."""
    steps = crowd.actions("click")
    done = [a for a in steps if a.done]
    per = crowd.cpu.get("click", math.nan) / max(len(done), 1)
    return [f"{len(done)} / {len(steps)}", spread([a.latency for a in done]), crowd.late,
            len(crowd.errors()), f"{per * 1e3:.0f}",
            f"{_mean([a.bytes / 1e3 for a in done]):.1f}"]


def _cpu_line(crowd, phase):
    used, wall = crowd.detail[phase], crowd.wall[phase]
    names = ", ".join(f"{name} {used[name]:.1f}" for name in crowd.pids)
    return (f"{phase} phase, {wall:.0f} s, CPU seconds: {names}; this client "
            f"{used['client']:.1f}; the machine {used['machine'] / wall:.2f} cores busy")


def _split(crowd):
    return ", ".join(f"{w} {n}" for w, n in crowd.split().items())


def _opened(crowd):
    opens = crowd.actions("open")
    done = [a for a in opens if a.done]
    return done, opens


def _class_steps(section):
    c, s = section["crowd"], section["settings"]
    done, opens = _opened(c)
    out = [f"## 2. {len(c.tabs)} students on {s['workers']} workers behind nginx, a Step every "
           f"{s['every']:g} s for {s['duration']:g} s (goal: Step p95 ≤ 0.5 s)", "",
           _start(section), ""]
    out += table(["students × workers", "Steps finished / sent", "Step p50 / p95 / max (ms)",
                  "late clicks", "errors", "server CPU per Step (ms)", "kB per Step",
                  "students per worker", "page load p50 / p95 / max (s)"],
                 [[f"{len(c.tabs)} × {s['workers']}", *_crowd_row(c), _split(c),
                   spread([a.latency for a in done], 1, 1)]])
    out += ["", f"- The students opened `{section['link']}` over {s['ramp']:g} s "
            f"({len(done)} of {len(opens)} loaded), then clicked; a Step due on a stopped run "
            f"clicks Reset first ({len(c.actions('reset'))} Resets, not counted as Steps, their "
            f"CPU in the phase's)." + (" Workers warmed: one open of the page on each." if
            s["warm"] else " Cold workers."),
            f"- {_cpu_line(c, 'click')}",
            "- Students per worker: the worker nginx named in each websocket handshake "
            "(`X-Cbviz-Worker`)."]
    return out + _errors(c.errors())


def _class_link(section):
    c, s = section["crowd"], section["settings"]
    done, opens = _opened(c)
    per = c.cpu["open"] / max(len(done), 1)
    out = [f"## 3. {len(c.tabs)} students opening the class link within {s['within']:g} s on "
           f"{s['workers']} workers (goal: page ready p95 ≤ 5 s)", "", _start(section), ""]
    out += table(["students × workers", "opened within", "page ready p50 / p95 / max (s)",
                  "finished", "errors", "server CPU per open (ms)", "students per worker"],
                 [[f"{len(c.tabs)} × {s['workers']}", f"{s['within']:g} s",
                   spread([a.latency for a in done], 1, 2), f"{len(done)} of {len(opens)}",
                   len(c.errors()), f"{per * 1e3:.0f}", _split(c)]])
    out += ["", f"- The link: `{section['link']}`, opened evenly spread over the "
            f"{s['within']:g} s; page ready: from the first HTTP request to the end of the "
            "session's first run." + (" Workers warmed: one open of the link on each." if
            s["warm"] else " Cold workers."),
            f"- {_cpu_line(c, 'open')}"]
    return out + _errors(c.errors())


def knee(crowds):
    """The first number of students whose Step p95 passes :data:`KNEE`, or None."""
    for n, crowd in crowds:
        lat = [a.latency for a in crowd.actions("click") if a.done]
        if percentile(lat, 95) > KNEE:
            return n
    return None


def _one_worker(section):
    s, crowds = section["settings"], section["crowds"]
    out = [f"## 4. One worker (`serve()`): N students, a Step every {s['every']:g} s for "
           f"{s['duration']:g} s (goal: p95 passes 1 s at N ≥ 100)", "", _start(section), ""]
    rows = []
    for n, c in crowds:
        busy = c.detail["click"]["machine"] / c.wall["click"]
        client = c.detail["click"]["client"] / c.wall["click"]
        rows.append([n, *_crowd_row(c), f"{busy:.2f} / {client:.2f}",
                     f"{section['loads'][n][0]:.2f}"])
    out += table(["students", "Steps finished / sent", "Step p50 / p95 / max (ms)",
                  "late clicks", "errors", "server CPU per Step (ms)", "kB per Step",
                  "cores busy: machine / this client", "load average at its start"], rows)
    first = knee(crowds)
    out += ["", f"- **Step p95 passes {KNEE:g} s first at N = {first}**" if first else
            f"- **Step p95 does not pass {KNEE:g} s up to N = {crowds[-1][0]}**" if crowds
            else "- no N measured",
            f"- Each N on a fresh worker, opened over {s['ramp']:g} s before the clicks"
            + (", warmed by one open of the page." if s["warm"] else ", cold.")]
    for n, c in crowds:
        out += _errors([f"N={n}: {e}" for e in c.errors()])
    return out


SECTIONS = {1: _costs, 2: _class_steps, 3: _class_link, 4: _one_worker}
