"""A student's place in the lessons, kept in the session and in the link.

``?lesson=N&stage=K`` (with ``steps``, ``guess``, the explorer point ``r``/``d`` and the
computed results ``computed``) reopens the same stage with the same run: the settings come
through the sidebar's link mechanism, the run is the step page's (replayed to ``steps``).
"""
from __future__ import annotations

import io

import streamlit as st

from ..algorithms.registry import ALGORITHMS
from ..lessons import LESSONS, Compute, Lab, LessonError, Step
from ..workbench import Settings
from . import hide, runs, state
from .controls import HP_STORE
from .sidebar import apply_settings

KEY = "lesson_progress"
RESULTS = "lesson_results"


def progress():
    """The session's progress dict (``n``, ``stage``, ``guesses``, ``explorer``) or None."""
    return st.session_state.get(KEY)


def full_params(lesson):
    """The lesson's hyper-parameters with the algorithm's defaults for the others (the step
    page's run has them all, so the same run continues there)."""
    values = {}
    for p in ALGORITHMS[lesson.algorithm].params:
        if p.active(values):
            values[p.name] = lesson.params.get(p.name, p.default)
    return values


def enter(n, stage=1, steps=0, apply=True, explorer=None, guess=None):
    """Open lesson ``n`` at ``stage``: its settings (``apply``: through the link mechanism),
    its run in the step page's store (replayed to ``steps``), a fresh progress."""
    lesson = LESSONS[n - 1]
    if apply:
        apply_settings(lesson.settings)
    runs.reset()
    st.session_state["step_replay"] = int(steps)
    page = state.store(runs.VIEW_STORE)
    page.update(algorithm=lesson.algorithm, max_iter=lesson.max_iter)
    state.store(HP_STORE).update({f"{lesson.algorithm}.{k}": v
                                  for k, v in full_params(lesson).items()})
    st.session_state[KEY] = {"n": n, "stage": stage, "guesses": {} if guess is None
                             else {stage: guess}, "explorer": {**lesson.explorer,
                                                               **(explorer or {})}}
    st.session_state.pop(RESULTS, None)


def leave():
    st.session_state.pop(KEY, None)
    st.session_state.pop(RESULTS, None)


def go(stage):
    st.session_state[KEY]["stage"] = stage


def read_link():
    """Open the lesson a link names, once per session; returns what was ignored."""
    if st.session_state.get("lesson_link_loaded"):
        return []
    st.session_state["lesson_link_loaded"] = True
    link = st.session_state.get("link", {})
    if "lesson" not in link:
        return []
    ignored = []
    try:
        n = int(link["lesson"])
        lesson = LESSONS[n - 1] if 1 <= n <= len(LESSONS) else None
        if lesson is None:
            raise ValueError
    except (TypeError, ValueError):
        return [f"lesson must be an integer in [1, {len(LESSONS)}]; got "
                f"{str(link['lesson'])[:40]!r}"]
    stage = _int(link, "stage", 1, len(lesson.stages), 1, ignored)
    steps = _int(link, "steps", 0, lesson.max_iter, 0, ignored)
    explorer = {}
    for field in lesson.explorer:
        if field in link:
            try:
                explorer[field] = min(0.5, max(0.0, float(link[field])))
            except (TypeError, ValueError):
                ignored.append(f"{field} must be a number in [0, 0.5]")
    guess = None
    if "guess" in link:
        try:
            guess = lesson.stage(stage).question.read(link["guess"])
        except LessonError as exc:
            ignored.append(f"guess: {exc}")
    enter(n, stage, steps, apply=False, explorer=explorer, guess=guess)
    st.session_state["lesson_stopped"] = link.get("stopped") == "1"
    computed = [k for k in str(link.get("computed", "")).split(",") if k]
    st.session_state["lesson_compute"] = [k for k in computed if k in lesson.computations]
    return ignored


def _int(link, key, low, high, default, ignored):
    if key not in link:
        return default
    try:
        value = int(link[key])
        if not low <= value <= high:
            raise ValueError
        return value
    except (TypeError, ValueError):
        ignored.append(f"{key} must be an integer in [{low}, {high}]; got "
                       f"{str(link[key])[:40]!r}")
        return default


def results(settings, run):
    """The session's computed results of this lesson, on these settings and this run."""
    key = (progress()["n"], settings, id(run))
    held = st.session_state.get(RESULTS)
    if held is None or held["key"] != key:
        held = {"key": key, "results": {}}
        st.session_state[RESULTS] = held
    return held["results"]


def lab(settings, problem, run):
    p = progress()
    return Lab(LESSONS[p["n"] - 1], settings, problem, run, explorer=p["explorer"],
               results=results(settings, run))


def catch_up(lab, stage):
    """Perform what the stages before ``stage`` did (a link that lands on a later stage), and
    the computations the link names."""
    for k in st.session_state.pop("lesson_compute", []):
        lab.result(k)
    if st.session_state.pop("lesson_stopped", False) and not lab.run.done:
        lab.run.step()   # the run had stopped there: the step it refused marks it done again
    for earlier in lab.lesson.stages[:stage - 1]:
        if isinstance(earlier.action, (Step, Compute)):
            earlier.action.perform(lab)
    runs.show_iteration(len(lab.run.history))


def link_values(lab, stage):
    """What the link carries to reopen this stage with this run."""
    p = progress()
    values = {"lesson": p["n"], "stage": stage, "steps": len(lab.run.history),
              **{k: f"{v:g}" for k, v in p["explorer"].items()}}
    if lab.run.done:
        values["stopped"] = 1
    if lab.results:
        values["computed"] = ",".join(sorted(lab.results))
    if stage in p["guesses"]:
        values["guess"] = p["guesses"][stage]
    values.update(hide.link_value())
    return {k: str(v) for k, v in values.items()}


def class_link(base, n, stage, parts):
    """The URL that opens lesson ``n`` at ``stage`` with ``parts`` hidden."""
    from urllib.parse import urlencode
    lesson = LESSONS[n - 1]
    defaults = Settings().to_dict()   # a link's missing settings are the defaults: a short
    query = {k: v for k, v in Settings.from_link(lesson.settings)[0].to_dict().items()
             if v != defaults[k]}         # link, a QR code a projector shows legibly
    query.update(lesson=n, stage=stage)
    if parts:
        query["hide"] = ",".join(parts)
    return f"{base.split('?')[0]}?{urlencode({k: str(v) for k, v in query.items()})}"


def qr_png(url):
    """A QR code of ``url`` as PNG bytes (segno), large enough for a projector."""
    import segno
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="png", scale=8, border=2)
    return buffer.getvalue()


def move_widget(action, explorer, key):
    """The slider of a :class:`~cbviz.lessons.Move` stage, tied to the lesson's explorer."""
    def changed():
        explorer[action.field] = round(float(st.session_state[key]), 6)
    st.session_state[key] = float(explorer[action.field])
    return st.slider(action.label, action.low, action.high, step=action.step, key=key,
                     on_change=changed)


__all__ = ["progress", "enter", "leave", "go", "read_link", "lab", "catch_up", "link_values",
           "class_link", "qr_png", "move_widget", "full_params"]
